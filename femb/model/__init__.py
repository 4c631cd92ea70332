"""Models: parts, materials, sections, supports, ties, markers and loads."""
from femb.model.loads import dof_names_for
from femb.model.materials import Material, Section
from femb.model.model import Model, Part
from femb.model.superelements import SuperelementData

__all__ = ["Model", "Part", "Material", "Section", "dof_names_for", "SuperelementData"]

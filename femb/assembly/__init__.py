"""Numeric assembly into the fixed CSR pattern of a CorrelationTable."""
from femb.assembly.assembler import Assembler
from femb.assembly.loads import LoadAssembler

__all__ = ["Assembler", "LoadAssembler"]

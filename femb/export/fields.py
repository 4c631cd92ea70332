"""Nodal and element fields of one frame of a Results, ready for VTK.

Points are the reference coordinates of every mesh node, padded to 3 components; cells
are the elements of each part (one cell block per part, in the table's block order).

Point data (n_nodes, ...) float64:
    displacement (3,), deformed (3,) = reference + displacement, rotation (2-D: scalar rz;
    3-D: (3,) rotational DOF values rx, ry, rz when the model has them), velocity (3,) and
    angular_velocity when the Results has velocities, reaction_force (3,) and
    reaction_moment when per-frame ``reactions`` were recorded. DOFs a node does not carry
    are zero.
Cell data (n_cells,) float64 per block:
    every section resultant named by the element specs (NaN in parts whose element lacks
    it), strain_energy_density (strain energy / reference length), axial_strain
    ((l − l0)/l0 of the chord, engineering), part_id (int, index of the part).
Shell cell data (when the model has shell parts; NaN in the other parts), element frame
(e1, e2 in the cell's plane, e3 its normal), from the resultants at the point where the
element reports them (shell3: constant membrane force, moments at the centroid; shell4:
membrane force, moments and shears at the centre ξ = η = 0):
    membrane_force (3,) = (Nxx, Nyy, Nxy) [force/length], bending_moment (3,) = (Mxx, Myy,
    Mxy) [moment/length], transverse_shear (2,) = (Qx, Qy) [force/length] (shell4; NaN for
    the thin shell3), stress_top / stress_bottom (3,) = (σxx, σyy, τxy) on the faces
    z = ±t/2 (top: the +e3 side) from σ = N/t ∓ 6 M/t² (M sagging positive: a positive
    moment stretches the bottom face), von_mises_top, von_mises_bottom (plane stress
    √(σxx² − σxx σyy + σyy² + 3 τxy²)) and von_mises (the larger of the two).
"""
import numpy as np

from femb.assembly import Assembler

TRANSLATIONS = ("ux", "uy", "uz")
SHELL_FIELDS = ("membrane_force", "bending_moment", "transverse_shear", "stress_top", "stress_bottom",
                "von_mises_top", "von_mises_bottom", "von_mises")


def _is_shell(spec):
    names = spec.resultant_names
    return "t" in spec.params and all(k in names for k in ("Nxx", "Nyy", "Nxy", "Mxx", "Myy", "Mxy"))


def von_mises_plane(sigma):
    """Plane-stress von Mises stress of (..., 3) = (σxx, σyy, τxy)."""
    sx, sy, txy = sigma[..., 0], sigma[..., 1], sigma[..., 2]
    return np.sqrt(np.maximum(sx * sx - sx * sy + sy * sy + 3.0 * txy * txy, 0.0))


def shell_fields(resultants, names, thickness):
    """Shell cell fields (module docstring) from a block's resultants (n_el, n_res) with
    column names ``names`` and the thickness (n_el,)."""
    names = list(names)
    col = lambda keys: resultants[:, [names.index(k) for k in keys]]  # noqa: E731
    N, M = col(("Nxx", "Nyy", "Nxy")), col(("Mxx", "Myy", "Mxy"))
    Q = col(("Qx", "Qy")) if "Qx" in names else np.full((len(N), 2), np.nan)
    t = np.asarray(thickness, dtype=np.float64)[:, None]
    top, bottom = N / t - 6.0 * M / t**2, N / t + 6.0 * M / t**2
    vt, vb = von_mises_plane(top), von_mises_plane(bottom)
    return {"membrane_force": N, "bending_moment": M, "transverse_shear": Q, "stress_top": top,
            "stress_bottom": bottom, "von_mises_top": vt, "von_mises_bottom": vb, "von_mises": np.maximum(vt, vb)}
ROTATIONS = ("rx", "ry", "rz")


def _drawn(block):
    """(meshio cell type, number of leading cell nodes) that draw the elements of a block:
    ``spec.drawn_as`` when the cells carry more nodes than their geometry (the
    floating-frame beams' frame nodes follow their own two nodes), else the cells as they are."""
    if block.spec.drawn_as is not None:
        return block.spec.drawn_as
    return block.spec.cell_type, block.cells.shape[1]


class FieldRecovery:
    """Computes the VTK fields of any frame of Results on one CorrelationTable.

    Parameters
    ----------
    table : CorrelationTable
    reference_points : (n_nodes, d) array, optional
        Reference coordinates of all mesh nodes (``model.mesh.points``); when None they
        are recovered from the element blocks (nodes outside every element at the origin).
    """

    def __init__(self, table, reference_points=None):
        self.table = table
        self.assembler = Assembler(table)
        n_nodes = table.node_var.shape[0]
        X = np.zeros((n_nodes, 3))
        if reference_points is not None:
            p = np.asarray(reference_points, dtype=np.float64)
            X[:, : p.shape[1]] = p
        else:
            for b in table.blocks:
                X[b.cells.reshape(-1), : table.dim] = b.X.reshape(-1, b.X.shape[-1])
        self.X = X
        self.resultant_names = []
        for b in table.blocks:
            self.resultant_names += [n for n in b.spec.resultant_names if n not in self.resultant_names]
        self.shells = any(_is_shell(b.spec) for b in table.blocks)
        self.lengths = [np.linalg.norm(b.X[:, _drawn(b)[1] - 1, :] - b.X[:, 0, :], axis=1) for b in table.blocks]

    @property
    def cells(self):
        """List of (meshio cell type, (n_el, n_nodes) connectivity), one per part."""
        return [(_drawn(b)[0], b.cells[:, : _drawn(b)[1]]) for b in self.table.blocks]

    @property
    def parts(self):
        return [b.part for b in self.table.blocks]

    def _nodal(self, values, names):
        """(n_nodes, len(names)) DOF values of a variable vector (0 where absent)."""
        t = self.table
        out = np.zeros((t.node_var.shape[0], len(names)))
        for k, name in enumerate(names):
            if name in t.dof_names:
                col = t.node_var[:, t.dof_names.index(name)]
                out[col >= 0, k] = values[col[col >= 0]]
        return out

    def _rotation_names(self):
        return tuple(n for n in ROTATIONS if n in self.table.dof_names)

    def point_data(self, u, v=None, reactions=None):
        """Point data dict for state ``u`` (n_var,), velocities ``v`` and reactions over
        ``table.constrained_vars`` (see the module docstring)."""
        disp = self._nodal(u, TRANSLATIONS)
        out = {"displacement": disp, "deformed": self.X + disp}
        rot = self._rotation_names()
        planar = self.table.dim == 2
        if rot:
            r = self._nodal(u, rot)
            out["rotation"] = r[:, -1] if planar else self._nodal(u, ROTATIONS)
        if v is not None:
            out["velocity"] = self._nodal(v, TRANSLATIONS)
            if rot:
                w = self._nodal(v, ROTATIONS)
                out["angular_velocity"] = w[:, 2] if planar else w
        if reactions is not None:
            full = np.zeros(self.table.n_var)
            full[self.table.constrained_vars] = reactions
            out["reaction_force"] = self._nodal(full, TRANSLATIONS)
            if rot:
                m = self._nodal(full, ROTATIONS)
                out["reaction_moment"] = m[:, 2] if planar else m
        return out

    def cell_data(self, u):
        """Cell data dict name -> list (one (n_el,) array per part) at state ``u``."""
        res = self.assembler.resultants(u)
        _, energy = self.assembler.strain_energy(u, per_element=True)
        disp = self._nodal(u, TRANSLATIONS)
        out = {name: [] for name in self.resultant_names}
        out.update(strain_energy_density=[], axial_strain=[], part_id=[])
        if self.shells:
            out.update({name: [] for name in SHELL_FIELDS})
        for k, (b, L0) in enumerate(zip(self.table.blocks, self.lengths)):
            names = list(b.spec.resultant_names)
            for name in self.resultant_names:
                col = res[b.part][:, names.index(name)] if name in names else np.full(b.n_elements, np.nan)
                out[name].append(np.ascontiguousarray(col))
            first, last = b.cells[:, 0], b.cells[:, _drawn(b)[1] - 1]
            chord = (self.X[last] + disp[last]) - (self.X[first] + disp[first])
            safe = np.where(L0 > 0, L0, 1.0)
            out["axial_strain"].append((np.linalg.norm(chord, axis=1) - L0) / safe)
            out["strain_energy_density"].append(energy[b.part] / safe)
            out["part_id"].append(np.full(b.n_elements, k, dtype=np.int32))
            if self.shells:
                if _is_shell(b.spec):
                    shell = shell_fields(res[b.part], names, b.props[:, list(b.spec.params).index("t")])
                for name, width in zip(SHELL_FIELDS, (3, 3, 2, 3, 3, 1, 1, 1)):
                    value = shell[name] if _is_shell(b.spec) else np.full((b.n_elements, width), np.nan)
                    out[name].append(np.ascontiguousarray(value.reshape(b.n_elements, width) if width > 1 else value.reshape(-1)))
        return out

    def frame(self, results, index):
        """(point_data, cell_data) of frame ``index`` of ``results``."""
        u = results.states[index]
        v = results.velocities[index] if len(results.velocities) == len(results.states) else None
        reactions = None
        if "reactions" in results.arrays and len(results.arrays["reactions"]) == len(results.states):
            reactions = results.arrays["reactions"][index]
        return self.point_data(u, v, reactions), self.cell_data(u)


def resultant_cell_data(blocks, resultants):
    """Cells and resultant cell fields of element blocks without a state of their own (the
    full mesh of a superelement, whose resultants are recovered by stress modes):
    (cells, cell_data) with cells [(meshio cell type, connectivity)] one per block, and
    cell_data name -> list of (n_el, ...) arrays, one per block: every resultant of
    ``resultants`` (dict part -> (n_el, n_res), NaN in blocks whose element lacks it),
    ``part_id``, and the shell fields of the module docstring when a block is a shell."""
    blocks = list(blocks)
    names = []
    for b in blocks:
        names += [n for n in b.spec.resultant_names if n not in names]
    shells = any(_is_shell(b.spec) for b in blocks)
    out = {name: [] for name in names}
    out["part_id"] = []
    if shells:
        out.update({name: [] for name in SHELL_FIELDS})
    for k, b in enumerate(blocks):
        own = list(b.spec.resultant_names)
        values = resultants.get(b.part, np.zeros((b.n_elements, len(own))))
        for name in names:
            col = values[:, own.index(name)] if name in own else np.full(b.n_elements, np.nan)
            out[name].append(np.ascontiguousarray(col))
        out["part_id"].append(np.full(b.n_elements, k, dtype=np.int32))
        if shells:
            shell = shell_fields(values, own, b.props[:, list(b.spec.params).index("t")]) if _is_shell(b.spec) else None
            for name, width in zip(SHELL_FIELDS, (3, 3, 2, 3, 3, 1, 1, 1)):
                value = shell[name] if shell is not None else np.full((b.n_elements, width), np.nan)
                out[name].append(np.ascontiguousarray(value.reshape(b.n_elements, width) if width > 1 else value.reshape(-1)))
    cells = [(_drawn(b)[0], b.cells[:, : _drawn(b)[1]]) for b in blocks]
    return cells, out


def recovery_for(results):
    """A FieldRecovery for ``results`` (reference points from ``results.model`` when set)."""
    model = getattr(results, "model", None)
    points = model.mesh.points if model is not None else None
    return FieldRecovery(results.table, points)

"""Configuration-dependent mass in the α schemes: M(u) ü + h(u, u̇) + f_int = f_ext.

Element types whose mass kind is neither constant (``spec.constant_mass``) nor a rotary
inertia of oriented nodes (``spec.rotary_kinds``) but that provide the quadratic-velocity
force ``velocity_force(X, u, v, p, f)`` (elements.base) — ``rigid_body2d_offset`` today, a
Craig–Bampton superelement whose reduced mass M_r is carried by a shadow frame later — are
*variable-mass* blocks. ``DynamicProblem`` leaves their masses out of its constant
matrices; the planar α step (femb.solvers.dynamics.schemes.GeneralizedAlpha) re-assembles
them at every iteration through ``VariableMass``:

- inertia force M(u) a (n_var,), weighted like the constant mass,
  (1 − α_m) M(u_{n+1}) a_{n+1} + α_m M(u_n) a_n;
- quadratic-velocity force h(u, v) (n_var,), part of the force g = f_int + f_d + h that the
  scheme weights with α_f;
- their derivatives for the Newton matrix: M(u) itself and ∂(M(u) a)/∂u, ∂h/∂u, ∂h/∂v by
  central differences of the element kernels, element by element (n_edof pairs of kernel
  calls per block and iteration; steps of 1e-6 times the length scale for translations,
  1e-6 rad otherwise), so the iteration matrix is the exact one up to O(1e-12).

The interface a new element type plugs in through is the element contract only: ``mass``
(any kind that is not constant) and ``velocity_force`` with h = Ṁ u̇ − ∂T/∂u, T = ½ u̇ᵀ M(u)
u̇. The energy-conserving mid-point scheme refuses such models (it needs a constant mass);
the kinetic energy ½ vᵀ M(u) v and the momenta of the energy account include them.
"""
import numpy as np

from femb.core.scatter import scatter_matrix, scatter_vector

ROTATIONAL = ("rx", "ry", "rz")


class VariableMass:
    """The variable-mass blocks of a problem (module docstring).

    Parameters
    ----------
    problem : DynamicProblem
    blocks : list of int, the indices of the variable-mass blocks in ``table.blocks``
    """

    def __init__(self, problem, blocks):
        self.p = problem
        self.blocks = list(blocks)
        t = problem.table
        self.steps = []
        for i in self.blocks:
            spec = t.blocks[i].spec
            per_node = [problem.length_scale if n not in ROTATIONAL else 1.0 for n in spec.node_dofs]
            self.steps.append(1e-6 * np.array(per_node * spec.n_nodes + [1.0] * (spec.n_edof - len(per_node) * spec.n_nodes)))

    def __bool__(self):
        return bool(self.blocks)

    def parts(self):
        """Names of the parts with a configuration-dependent mass."""
        return [self.p.table.blocks[i].part for i in self.blocks]

    def _element(self, b, buf, ue, ve, ae):
        """(M_e (n_el, n, n), M_e a_e + h_e (n_el, n) split as (Ma, h)) at element values."""
        kernels, props = b.spec.kernels, b.props
        shape = buf.K.shape
        M = np.zeros(shape)
        kernels.mass(b.X, ue, props, self.p.mass_kind, M)
        h = np.zeros(shape[:2])
        kernels.velocity_force(b.X, ue, ve, props, h)
        return M, np.einsum("eij,ej->ei", M, ae), h

    def evaluate(self, u, v, a, c_a=None, c_v=None, data=None, t=0.0):
        """(M(u) a (n_var,), h(u, v) (n_var,)) (t, the time, unused: the element kernels
        have no time-dependent part); with ``data`` (CSR data over the equations,
        the table's pattern) also adds the Newton matrix c_a M(u) + ∂(M a)/∂u w_a +
        ∂h/∂u w_h + c_v ∂h/∂v into it, where the caller's weights are folded in as
        ``c_a`` = (c_a of M, weight of ∂(M a)/∂u), ``c_v`` = (weight of ∂h/∂u, weight of
        ∂h/∂v)."""
        t = self.p.table
        Ma = np.zeros(t.n_var)
        hv = np.zeros(t.n_var)
        for k, (b, buf, args) in enumerate(self.p.assembler.loop.each((u, v, a), only=self.blocks)):
            _, ue, ve, ae = args
            ue, ve, ae = ue.copy(), ve.copy(), ae.copy()
            M, fa, h = self._element(b, buf, ue, ve, ae)
            scatter_vector(b.var, fa, Ma)
            scatter_vector(b.var, h, hv)
            if data is None:
                continue
            (wM, wMa), (wh, whv) = c_a, c_v
            K = wM * M
            for j, eps in enumerate(self.steps[k]):
                cols = []
                for sgn in (1.0, -1.0):
                    up = ue.copy()
                    up[:, j] += sgn * eps
                    vp = ve.copy()
                    vp[:, j] += sgn * eps
                    _, fa_u, h_u = self._element(b, buf, up, ve, ae)
                    _, _, h_v = self._element(b, buf, ue, vp, ae)
                    cols.append((fa_u, h_u, h_v))
                (fa_p, hu_p, hv_p), (fa_m, hu_m, hv_m) = cols
                K[:, :, j] += (wMa * (fa_p - fa_m) + wh * (hu_p - hu_m) + whv * (hv_p - hv_m)) / (2.0 * eps)
            scatter_matrix(b.pos, K, data)
        return Ma, hv

    def mass_data(self, u):
        """M(u) of the variable-mass blocks as CSR data (nnz,) over the equations."""
        t = self.p.table
        data = t.new_matrix_data()
        for b, Me in zip((t.blocks[i] for i in self.blocks), self.element_masses(u)):
            scatter_matrix(b.pos, Me, data)
        return data

    def element_masses(self, u):
        """[M_e(u) (n_el, n, n)] of the variable-mass blocks, in the order of ``blocks``."""
        out = []
        for b, buf, (X, ue) in self.p.assembler.loop.each((u,), only=self.blocks):
            M = np.zeros(buf.K.shape)
            b.spec.kernels.mass(X, ue, b.props, self.p.mass_kind, M)
            out.append(M)
        return out

    def kinetic_energy(self, u, v):
        """½ Σ v_eᵀ M_e(u) v_e of the variable-mass blocks."""
        T = 0.0
        t = self.p.table
        for b, Me in zip((t.blocks[i] for i in self.blocks), self.element_masses(u)):
            ve = np.where(b.var >= 0, v[np.maximum(b.var, 0)], 0.0)
            T += 0.5 * float(np.einsum("ei,eij,ej->", ve, Me, ve))
        return T


class ConfigurationMass:
    """The configuration-dependent inertia the planar α step re-assembles at every
    iteration: the variable-mass blocks (``VariableMass``) and the node-attached mass
    points of sections whose mass centre is off the node line
    (femb.solvers.dynamics.offset_points.PlanarOffsetPoints), each with
    ``evaluate(u, v, a, c_a, c_v, data, t) -> (M(u) a, h(u, v, t))``, ``mass_data(u)``
    and ``parts()``; this object sums them."""

    def __init__(self, *items):
        self.items = [x for x in items if x]

    def __bool__(self):
        return bool(self.items)

    def parts(self):
        """Names of the parts with a configuration-dependent inertia."""
        return [name for x in self.items for name in x.parts()]

    def evaluate(self, u, v, a, c_a=None, c_v=None, data=None, t=0.0):
        """Σ (M(u) a (n_var,), h(u, v, t) (n_var,)) over the items, their Newton matrices
        added into ``data`` (see ``VariableMass.evaluate``)."""
        Ma, hv = 0.0, 0.0
        for x in self.items:
            a_, h_ = x.evaluate(u, v, a, c_a=c_a, c_v=c_v, data=data, t=t)
            Ma, hv = Ma + a_, hv + h_
        return Ma, hv

    def mass_data(self, u):
        """Σ M(u) of the items as CSR data (nnz,) over the equations."""
        return sum(x.mass_data(u) for x in self.items)

"""The Results container (femb.results.Results): frames and history columns as recorded,
NaN where a frame did not record a column."""
import numpy as np

from femb.correlation import build_table
from femb.mesh import line_mesh
from femb.model import Model
from femb.results import Results


def test_history_columns_are_padded_with_nan_where_a_frame_did_not_record_them():
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 2, "b"), dim=2)
    model.add_part("b", "truss2d", "b", values={"EA": 1.0, "rhoA": 1.0})
    table = build_table(model)
    res = Results(table, "dynamic", model)
    u = np.arange(table.n_var, dtype=np.float64)
    res.record(0.0, u, u, a=1.0, b=2.0)
    res.record(0.5, u, a=3.0)  # no b
    res.record(1.0, u, b=4.0, c=5)  # no a; c new
    assert res.times == [0.0, 0.5, 1.0] and len(res.velocities) == 1
    assert np.array_equal(res.series("a"), [1.0, 3.0, np.nan], equal_nan=True)
    assert np.array_equal(res.series("b"), [2.0, np.nan, 4.0], equal_nan=True)
    assert np.array_equal(res.series("c"), [np.nan, np.nan, 5.0], equal_nan=True)
    assert all(type(x) is float for col in res.history.values() for x in col)
    u[0] = -1.0  # the frames hold copies
    assert res.states[0][0] == 0.0 and res.velocities[0][0] == 0.0
    res.record_frames([1.5, 2.0], np.tile(u, (2, 1)), a=[6.0, 7.0])
    assert np.array_equal(res.series("b"), [2.0, np.nan, 4.0, np.nan, np.nan], equal_nan=True)
    assert np.array_equal(res.series("a"), [1.0, 3.0, np.nan, 6.0, 7.0], equal_nan=True)

"""``femb render`` (issue 15, item 11): an unknown field is an error listing the fields;
``--warp`` magnifies the deformation only, not the rigid motion of a mechanism; the
picture says what it shows (title, axis titles with units, colour-bar title)."""
import meshio
import numpy as np
import pytest

from femb.cli import main
from femb.export.render import describe_frame, render_matplotlib, warped_points


def rotated_bent_frame(path):
    """A three-node, two-element part turned rigidly by 90° about the origin (a crank),
    its middle node bent sideways by 0.01: a .vtu frame as femb writes it."""
    ref = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, 0.0, 0.0]])
    turned = np.array([[0.0, 0.0, 0.0], [-0.01, 0.5, 0.0], [0.0, 1.0, 0.0]])
    mesh = meshio.Mesh(ref, [("line", np.array([[0, 1], [1, 2]]))], point_data={"displacement": turned - ref},
                       cell_data={"part_id": [np.array([0, 0])], "N": [np.array([1.0, 2.0])]})
    mesh.field_data = {}
    meshio.write(path, mesh)
    return ref, turned


def test_warp_magnifies_the_deformation_not_the_rigid_motion(tmp_path):
    ref, turned = rotated_bent_frame(tmp_path / "f.vtu")
    disp = turned - ref
    assert np.allclose(warped_points(ref, disp, 1.0), turned)  # warp 1: the computed shape
    drawn = warped_points(ref, disp, 10.0, [np.arange(3)])
    # the part stays where the mechanism put it (along +y), its bending is 10 times larger
    assert np.allclose(drawn[[0, 2], 0], [0.0, 0.0], atol=0.04) and np.allclose(drawn[[0, 2], 1], [0.0, 1.0], atol=0.01)
    chord = 0.5 * (drawn[0] + drawn[2])
    assert drawn[1, 0] - chord[0] == pytest.approx(-0.1, rel=0.05)
    # scaling the whole displacement (the old behaviour) would put the tip at (-9, 10)
    assert np.linalg.norm(drawn[2] - (ref[2] + 10.0 * disp[2])) > 10.0


def test_warp_follows_each_part(tmp_path):
    """Two parts turned in opposite directions about a shared hinge node: each keeps its
    own rigid motion under a large warp."""
    ref = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    cur = np.array([[-0.8, 0.6, 0.0], [0.0, 0.0, 0.0], [0.8, 0.6, 0.0]])
    drawn = warped_points(ref, cur - ref, 25.0, [np.array([0, 1]), np.array([1, 2])])
    assert np.allclose(drawn, cur, atol=1e-9)  # no deformation: nothing to magnify


def test_unknown_scalars_is_exit_2_listing_the_fields(tmp_path, capsys):
    rotated_bent_frame(tmp_path / "f.vtu")
    code = main(["render", str(tmp_path / "f.vtu"), "--png", str(tmp_path / "f.png"), "--scalars", "stress"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and not (tmp_path / "f.png").exists()
    assert "--scalars 'stress': no such field" in err and "point fields: displacement" in err and "cell fields: N, part_id" in err


def test_picture_says_what_it_shows(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    rotated_bent_frame(tmp_path / "f.vtu")
    drawn = {}
    monkeypatch.setattr(Figure, "savefig", lambda fig, path, **kw: drawn.update(fig=fig))
    title = describe_frame(tmp_path / "f.vtu", 3, 10, "N", 5.0)
    assert title == "frame 3 of 10\ncolour: N; deformation x5 relative to each part's rigid motion"
    render_matplotlib(tmp_path / "f.vtu", tmp_path / "f.png", "N", 5.0, title=title, length_unit="mm")
    ax, bar = drawn["fig"].axes
    assert ax.get_xlabel() == "x [mm]" and ax.get_ylabel() == "y [mm]" and ax.get_title() == title
    assert bar.get_ylabel() == "N"


def test_cli_render_default_title_and_units(tmp_path, capsys, monkeypatch):
    from matplotlib.figure import Figure

    rotated_bent_frame(tmp_path / "f.vtu")
    drawn = {}
    monkeypatch.setattr(Figure, "savefig", lambda fig, path, **kw: drawn.update(fig=fig))
    code = main(["render", str(tmp_path / "f.vtu"), "--png", str(tmp_path / "f.png"), "--backend", "matplotlib", "--length-unit", "m"])
    assert code == 0
    ax, bar = drawn["fig"].axes
    assert ax.get_xlabel() == "x [m]" and bar.get_ylabel() == "displacement magnitude [m]"
    assert ax.get_title() == "f.vtu\ncolour: displacement magnitude [m]; true deformed shape"


def test_demo_mechanism_picture_has_units(tmp_path, capsys, monkeypatch):
    import importlib.util

    from matplotlib.figure import Figure

    from tests.io.conftest import EXAMPLES

    spec = importlib.util.spec_from_file_location("femb_demo", EXAMPLES / "demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    figures = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, path, **kw: figures.append(fig))
    demo.main(["--out", str(tmp_path), "--smoke", "--no-progress", "--backend", "matplotlib"])
    mechanism = [f for f in figures if f.axes and f.axes[0].get_title().startswith("rod at the first deflection peak")]
    assert len(mechanism) == 1
    ax, bar = mechanism[0].axes
    assert ax.get_xlabel() == "x [m]" and ax.get_ylabel() == "y [m]" and bar.get_ylabel() == "bending moment M1 [N m]"

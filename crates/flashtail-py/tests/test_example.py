"""The example script draws the default compare's tail figure from the DataFrames."""

import runpy

from PIL import Image


def test_compare_figure_example(repo, tmp_path):
    ns = runpy.run_path(str(repo / "crates" / "flashtail-py" / "examples" / "compare_figure.py"))
    out = ns["main"](str(tmp_path / "tail.png"))
    w, h = Image.open(out).size
    assert (w, h) == (1080, 660)

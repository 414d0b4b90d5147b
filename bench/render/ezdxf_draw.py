"""ezdxf's drawing add-on timed in process: the calls `python3 -m ezdxf draw FILE -o OUT` makes
(ezdxf/commands.py, Draw.run), with the imports done before the clock starts, so the figure is
the renderer's own time (read + draw + save), comparable with Linework's in-process figure.

    python3 ezdxf_draw.py FILE OUT [RUNS]

Prints one JSON line: {"best": seconds, "runs": [seconds...]}.
"""
import json
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from ezdxf.addons.drawing import Frontend, RenderContext  # noqa: E402
from ezdxf.addons.drawing.config import Configuration  # noqa: E402
from ezdxf.addons.drawing.matplotlib import MatplotlibBackend  # noqa: E402
from ezdxf.commands import load_document  # noqa: E402


def draw(path: str, out: str) -> float:
    t0 = time.perf_counter()
    doc, _ = load_document(path)
    fig = plt.figure()
    ax = fig.add_axes([0, 0, 1, 1])
    Frontend(RenderContext(doc), MatplotlibBackend(ax), config=Configuration.defaults()).draw_layout(doc.modelspace(), finalize=True)
    fig.savefig(out, dpi=300)
    plt.close(fig)
    return time.perf_counter() - t0


if __name__ == "__main__":
    runs = [draw(sys.argv[1], sys.argv[2]) for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1)]
    print(json.dumps({"best": min(runs), "runs": runs}))

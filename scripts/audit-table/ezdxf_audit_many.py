"""Runs ezdxf's auditor on each file given; prints one JSON object: file name -> counts.

{"fixes": n, "errors": n, "codes": {"fix:202": n, ...}} per file, or {"failed": "why"} when ezdxf
cannot load it (the recover module is not used: a strict load is the check).
"""
import collections
import json
import os
import sys

import ezdxf

res = {}
for path in sys.argv[1:]:
    name = os.path.basename(path)
    try:
        doc = ezdxf.readfile(path)
        auditor = doc.audit()
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        res[name] = {"failed": (str(exc) or type(exc).__name__)[:90]}
        continue
    codes = collections.Counter()
    for f in auditor.fixes:
        codes[f"fix:{f.code.name if hasattr(f.code, 'name') else f.code}"] += 1
    for e in auditor.errors:
        codes[f"error:{e.code.name if hasattr(e.code, 'name') else e.code}"] += 1
    res[name] = {"fixes": len(auditor.fixes), "errors": len(auditor.errors), "codes": dict(codes)}
print(json.dumps(res))

"""Audits DXF files with ezdxf, many in one process (the closure tests and table use it).

Usage: python3 ezdxf_closure.py FILE.dxf ...
Prints one JSON line per file: {"file", "ok", "fixes": {CODE_NAME: n}, "errors": {CODE_NAME: n},
"messages": [...], "modelspace": {TYPE: n}, "blocks": [names]}; "modelspace" counts the entities
of model space that are left after the audit (what ezdxf keeps). A file that cannot be read gives
"ok": false and the reason in "messages", as does one whose audit raises.
"""
import json
import sys
from collections import Counter

import ezdxf
from ezdxf.audit import AuditError


def code_name(code) -> str:
    try:
        return AuditError(code).name
    except ValueError:
        return str(code)


def audit(path: str) -> dict:
    try:
        doc = ezdxf.readfile(path)
    except Exception as exc:  # noqa: BLE001 - report any reading failure
        return {"file": path, "ok": False, "messages": [f"read failed: {exc}"]}
    try:
        auditor = doc.audit()
    except Exception as exc:  # noqa: BLE001 - an auditor crash is a finding like any other
        return {"file": path, "ok": False, "messages": [f"audit failed: {type(exc).__name__}: {exc}"]}
    fixes = Counter(code_name(f.code) for f in auditor.fixes)
    errors = Counter(code_name(e.code) for e in auditor.errors)
    messages = [f"{code_name(e.code)}: {e.message}" for e in list(auditor.errors) + list(auditor.fixes)]
    msp = Counter(e.dxftype() for e in doc.modelspace())
    return {
        "file": path, "ok": True, "fixes": dict(fixes), "errors": dict(errors), "messages": messages[:40],
        "modelspace": dict(msp), "blocks": [b.name for b in doc.blocks],
    }


def main() -> int:
    for path in sys.argv[1:]:
        print(json.dumps(audit(path)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

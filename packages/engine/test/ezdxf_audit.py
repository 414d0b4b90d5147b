"""Reads a DXF file with ezdxf, runs its auditor and prints the counts as JSON.

Usage: python3 ezdxf_audit.py FILE.dxf
Prints {"errors": n, "fixes": n, "messages": [...]} and exits 0 (2 when the file cannot be read).
"""
import json
import sys

import ezdxf


def main() -> int:
    path = sys.argv[1]
    try:
        doc = ezdxf.readfile(path)
    except Exception as exc:  # noqa: BLE001 - report any reading failure
        print(json.dumps({"errors": -1, "fixes": -1, "messages": [f"read failed: {exc}"]}))
        return 2
    auditor = doc.audit()
    messages = [str(e.message) for e in auditor.errors] + [str(f.message) for f in auditor.fixes]
    print(json.dumps({
        "errors": len(auditor.errors),
        "fixes": len(auditor.fixes),
        "messages": messages[:50],
        "entities": len(doc.modelspace()),
        "version": doc.dxfversion,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())

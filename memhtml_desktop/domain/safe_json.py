"""`json.loads` for text a person or a program handed us: every failure is a `JSONDecodeError`.

Python's parser raises two other things on hostile input, which reached people as "unexpected
error": `RecursionError` on deep nesting (`[[[[…` 200,000 deep) and a plain `ValueError` on an
integer of more than 4,300 digits (CPython's int-parsing limit). Both become a `JSONDecodeError`
with a message a person can act on and, for the long number, the line it is on; the callers
already turn a `JSONDecodeError` into "line N: not JSON (…)".
"""

from __future__ import annotations

import json
import re
from typing import Any

_LONG_NUMBER = re.compile(r"\d{1000,}")


def loads(text: str) -> Any:
    """`json.loads(text)`; `json.JSONDecodeError` for anything it cannot read."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", text, 0) from None
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        match = _LONG_NUMBER.search(text)
        digits = f" ({len(match.group()):,} digits)" if match else ""
        raise json.JSONDecodeError(f"a number too long to read{digits}", text, match.start() if match else 0) from None

# SPDX-License-Identifier: Apache-2.0
"""What the check_*.py scripts share: a failed check is an exception with its message, and the
script's entry point turns it into "FAIL: <message>" and exit 1 (usage: the script's docstring,
exit 1 through sys.exit)."""
import sys


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def run_main(main, arguments, doc):
    """Calls main(*sys.argv[1:]) when it has `arguments` arguments and exits with its result."""
    if len(sys.argv) != arguments + 1:
        sys.exit(doc)
    try:
        sys.exit(main(*sys.argv[1:]))
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)

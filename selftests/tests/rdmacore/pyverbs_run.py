#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run one module of rdma-core's own test suite (tests/ of the installed
python3-pyverbs) against one RDMA device, and print one line per test:

    RESULT SECONDS TEST-ID [REASON]

RESULT is PASS, FAIL, ERROR or SKIP; a failure's or error's traceback
follows, indented. Usage: pyverbs_run.py SUITE-DIR DEVICE MODULE

The suite's package ("tests") is set up without running its __init__.py,
which imports every module of the suite (mlx5, efa...) in each process:
only utils, MODULE and what they import are loaded.
"""
import importlib
import sys
import time
import traceback
import types
import unittest


class LineResult(unittest.TestResult):
    """One line per test, flushed at once (a killed run keeps its lines)."""

    def startTest(self, test):
        super().startTest(test)
        self._t0 = time.monotonic()

    def _line(self, what, test, reason=''):
        dt = time.monotonic() - self._t0
        print(f'{what} {dt:.1f} {test.id()} {reason}'.rstrip(), flush=True)

    def _trace(self, err):
        for ln in ''.join(traceback.format_exception(*err)).splitlines():
            print('    ' + ln)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line('PASS', test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line('FAIL', test, (str(err[1]).splitlines() or [''])[0][:200])
        self._trace(err)

    def addError(self, test, err):
        super().addError(test, err)
        self._line('ERROR', test, repr(err[1])[:200])
        self._trace(err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line('SKIP', test, reason.replace('\n', ' '))

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._line('FAIL', subtest)
            self._trace(err)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line('PASS', test, '(expected failure)')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line('FAIL', test, '(unexpected success)')


def main():
    suite_dir, dev, module = sys.argv[1:4]
    sys.path.insert(0, suite_dir)
    sys.argv = [sys.argv[0], '--dev', dev]
    from args_parser import parser
    parser.parse_args()
    pkg = types.ModuleType('tests')
    pkg.__path__ = [suite_dir]
    sys.modules['tests'] = pkg
    # What __init__.py's first import (test_addr) loads first: the vendor
    # modules import utils, which imports them back (a cycle that only
    # resolves in this order).
    importlib.import_module('tests.utils')
    mod = importlib.import_module('tests.' + module)
    tests = unittest.defaultTestLoader.loadTestsFromModule(mod)
    result = LineResult()
    tests.run(result)
    bad = len(result.failures) + len(result.errors) + \
        len(result.unexpectedSuccesses)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

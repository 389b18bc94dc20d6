#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run modules of rdma-core's own test suite (tests/ of the installed
python3-pyverbs) against one RDMA device, and print one line per test:

    RESULT SECONDS TEST-ID [REASON]

RESULT is PASS, FAIL, ERROR or SKIP; a failure's or error's traceback
follows, indented. Usage: pyverbs_run.py SUITE-DIR DEVICE TIMEOUT MODULE...

Each module runs in a process of its own, forked from this one once the
suite's common code is imported (starting Python and importing pyverbs
anew for each of some 60 modules is most of a skipped module's time under
QEMU), and ends as a process does, through the interpreter's finalization,
where pyverbs destroys what the tests left. Its lines are framed by

    MODULE NAME
    END NAME EXIT SECONDS

EXIT as a shell gives it: the module's exit code (1 on a failure or an
error), 128 + the signal that ended it, or 137 once it ran past TIMEOUT
seconds and was killed. The runner's own exit code is 0 unless it failed
itself.

The suite's package ("tests") is set up without running its __init__.py,
which imports every module of the suite (mlx5, efa...): only utils, each
MODULE and what they import are loaded.
"""
import importlib
import os
import signal
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


def run_module(module):
    """The forked child: MODULE's tests, its exit code."""
    mod = importlib.import_module('tests.' + module)
    tests = unittest.defaultTestLoader.loadTestsFromModule(mod)
    result = LineResult()
    tests.run(result)
    bad = len(result.failures) + len(result.errors) + \
        len(result.unexpectedSuccesses)
    return 1 if bad else 0


def wait_child(pid, timeout):
    """The child's exit as a shell reports it, killed after TIMEOUT s."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return 137
        time.sleep(0.1)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def main():
    suite_dir, dev, timeout = sys.argv[1:4]
    modules = sys.argv[4:]
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
    for module in modules:
        print(f'MODULE {module}', flush=True)
        sys.stderr.flush()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            # sys.exit, not os._exit: the child ends through the
            # interpreter's finalization, as a process of its own would
            sys.exit(run_module(module))
        rc = wait_child(pid, float(timeout))
        print(f'END {module} {rc} {time.monotonic() - t0:.0f}', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())

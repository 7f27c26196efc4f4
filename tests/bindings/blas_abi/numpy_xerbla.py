#!/usr/bin/env python3
"""numpy's own XERBLA under LD_PRELOAD=libexala_blas.so (issue 15, row 13).

    numpy_xerbla.py <libexala_blas.so>

numpy's LAPACK extension modules (lapack_lite, _umath_linalg) define their
own xerbla_, which turns an illegal LAPACK argument into a Python ValueError;
they are loaded with RTLD_LOCAL. The idea of numpy's test_xerbla_override
(numpy/linalg/tests/test_linalg.py): lapack_lite.xerbla() and dorgqr with
LDA = 0 must raise ValueError ("DORGQR parameter number 5"). numpy skips that
test when its handler is not linked in; under the preload a xerbla_ of the
drop-in library in the global scope used to hide the modules' handler (the
system LAPACK found it first), and the error was only printed.

Exit status: 0 when the preloaded child gets both ValueErrors; 77 (ctest
SKIP_RETURN_CODE) when numpy cannot be imported, or when even without the
preload numpy's handler is not in effect (numpy's own test skips then too);
1 otherwise.
"""
import os
import subprocess
import sys

SKIP = 77

CHILD = r"""
import ctypes, sys
import numpy as np
from numpy.linalg import lapack_lite

# dlsym(RTLD_DEFAULT): is the drop-in library loaded in the global scope?
preloaded = hasattr(ctypes.CDLL(None), "exala_blas_abi_version")
print("preloaded", int(preloaded))

try:
    lapack_lite.xerbla()
    print("xerbla: no exception")
except ValueError as e:
    print("xerbla: ValueError")
except Exception as e:
    print("xerbla: %s: %s" % (type(e).__name__, e))

a = np.array([[1.0]])
try:
    lapack_lite.dorgqr(1, 1, 1, a, 0, a, a, 0, 0)  # LDA = 0: parameter 5
    print("dorgqr: no exception")
except ValueError as e:
    print("dorgqr: ValueError:", str(e).strip())
except Exception as e:
    print("dorgqr: %s: %s" % (type(e).__name__, e))
sys.stdout.flush()
"""

EXPECTED_DORGQR = "DORGQR parameter number 5"


def run_child(env):
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def handled(out):
    lines = out.splitlines()
    return ("xerbla: ValueError" in lines
            and any(l.startswith("dorgqr: ValueError:") and EXPECTED_DORGQR in l for l in lines))


def main():
    if len(sys.argv) != 2:
        print("usage: numpy_xerbla.py <libexala_blas.so>", file=sys.stderr)
        return 2
    lib = os.path.abspath(sys.argv[1])
    try:
        import numpy  # noqa: F401
    except Exception as e:  # ImportError, or a broken installation
        print("SKIPPED: numpy cannot be imported (python3 -c 'import numpy' fails: %s); "
              "install python3-numpy to run this test" % e)
        return SKIP

    base = dict(os.environ)
    base.pop("LD_PRELOAD", None)
    base["OMP_WAIT_POLICY"] = "passive"

    rc, out, err = run_child(base)
    if rc != 0 or not handled(out):
        print("SKIPPED: without the preload numpy's own xerbla is not in effect either "
              "(numpy skips test_xerbla_override then too):\n%s%s" % (out, err))
        return SKIP
    print("plain:\n" + out)

    env = dict(base, LD_PRELOAD=lib)
    rc, out, err = run_child(env)
    print("LD_PRELOAD=%s:\n%s%s" % (lib, out, err))
    ok = True
    if "preloaded 1" not in out.splitlines():
        print("FAILED: libexala_blas.so was not loaded (exala_blas_abi_version not found)")
        ok = False
    if rc != 0:
        print("FAILED: the child exited with status %d" % rc)
        ok = False
    if not handled(out):
        print("FAILED: numpy's xerbla did not raise ValueError under the preload "
              "(expected 'xerbla: ValueError' and '%s')" % EXPECTED_DORGQR)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

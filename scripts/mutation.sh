#!/usr/bin/env bash
# Mutation testing of the trusted kernel and the calculator's automation (slow; not CI).
#
#   pip install -e ".[test,mutation]"
#   scripts/mutation.sh                       # every module in [tool.mutmut] only_mutate
#   scripts/mutation.sh scaledattn.kernel.rules   # one module (a mutmut name glob prefix)
#
# One worker (the machine is shared); each mutant runs only the fast tests that reach
# the mutated function (see [tool.mutmut] in pyproject.toml). Results accumulate in
# mutants/ (git-ignored), so a second run only tests new or changed mutants. At the
# end, scripts/mutation_report.py prints the figures per module, with the survivors
# that docs/soundness.md explains as equivalent counted apart. After adding tests,
# `python scripts/mutation_report.py --retest` marks the survivors for another run.
set -euo pipefail
cd "$(dirname "$0")/.."
export HYPOTHESIS_PROFILE=ci SCALEDATTN_FRESH_CACHES=1
if [ "$#" -eq 0 ]; then
    mutmut run --max-children 1
else
    for module in "$@"; do
        mutmut run --max-children 1 "${module}.*"
    done
fi
python scripts/mutation_report.py

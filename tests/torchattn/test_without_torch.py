"""The torch extra is optional: nothing imports torch until a torch command runs."""

from __future__ import annotations

import subprocess
import sys


def _without_torch(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where torch and transformers cannot be imported."""
    hide = "import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None\n"
    return subprocess.run(
        [sys.executable, "-c", hide + code], capture_output=True, text=True, check=False
    )


def test_the_cli_and_the_audit_modules_import_without_torch() -> None:
    run = _without_torch(
        "import scaledattn.cli, scaledattn.torchattn.audit, scaledattn.torchattn.sdpa\n"
        "import scaledattn.torchattn.report\n"
        "from scaledattn.cli import main\n"
        "raise SystemExit(main(['audit', 'gpt2']))"
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1
    assert "install the torch extra: pip install torch==2.13.0 'scaledattn[torch]'" in run.stderr


def test_the_model_claims_page_refuses_in_one_line_without_torch() -> None:
    run = _without_torch(
        "from scaledattn.torchattn.model_claims import main\nraise SystemExit(main(['--closing']))"
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1
    assert "this command needs torch" in run.stderr

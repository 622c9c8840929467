"""The ``transformers`` translator backend: NLLB (dense and MoE) and MADLAD through ``AutoModelForSeq2SeqLM``.

What it feeds the model and how its output is read are the shared base's
(:mod:`xlcons.translation.translators`); this module loads the model (on one device, or
spread over several GPUs for the MoE) and decodes a batch, each sampled sentence seeded on
its own.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from xlcons.translation.spec import TranslationError, TranslatorSpec, device_kind
from xlcons.translation.translators import Translator, register

log = logging.getLogger(__name__)


@register
class TransformersTranslator(Translator):
    """NLLB through ``AutoModelForSeq2SeqLM``: dense M2M100 checkpoints and the NllbMoe ones (and MADLAD's T5).

    On several GPUs (``gpus`` > 1 and as many visible) the model is spread over them with
    ``device_map="auto"`` (accelerate), which the 54B MoE needs; otherwise it sits on one
    device. ``dtype: auto`` is bfloat16 on a GPU that has it and float32 elsewhere.
    """

    name = "transformers"

    def __init__(self, spec: TranslatorSpec):
        super().__init__(spec)
        import torch
        from transformers import AutoModelForSeq2SeqLM

        self.torch = torch
        if spec.location is None or not Path(spec.location).is_dir():
            raise TranslationError(
                f"translator: no checkpoint directory at {spec.location!r}; fetch the model or fix its path"
            )
        device = device_kind(spec.device)
        if device == "cuda" and not torch.cuda.is_available():
            raise TranslationError("translator: device cuda asked for, but no CUDA device is available")
        if spec.threads:
            torch.set_num_threads(spec.threads)
        dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}.get(spec.dtype)
        if dtype is None:  # auto
            dtype = torch.bfloat16 if device == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
        kwargs: dict[str, Any] = {"dtype": dtype, "local_files_only": True}
        spread = device == "cuda" and spec.gpus > 1 and torch.cuda.device_count() > 1
        if spread:
            kwargs["device_map"] = "auto"
        try:
            model = AutoModelForSeq2SeqLM.from_pretrained(spec.location, **kwargs)
        except (OSError, ValueError) as error:
            raise TranslationError(
                f"translator: cannot load a sequence-to-sequence model from {spec.location}: {error}"
            ) from error
        if not spread:
            model = model.to(device)
        self.model = model.eval()
        self.input_device = self.model.get_input_embeddings().weight.device
        self.start_id = self.model.generation_config.decoder_start_token_id
        if self.start_id is None:
            self.start_id = self.model.config.decoder_start_token_id
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.eos_id
        log.info(
            "translator: %s (%s) on %s, %s%s",
            type(self.model).__name__,
            spec.location,
            device,
            dtype,
            f", spread over {torch.cuda.device_count()} GPUs" if spread else "",
        )

    def _generate(self, batch, tgt, tgt_id, sampling):
        torch = self.torch
        width = max(len(ids) for ids in batch)
        input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            attention[row, : len(ids)] = 1
        # NLLB: the target tag is forced, and is a new token too. MADLAD: nothing forced (None
        # also overrides a forced token a checkpoint's generation config might carry).
        kwargs: dict[str, Any] = {
            "forced_bos_token_id": tgt_id,
            "max_new_tokens": self.spec.max_new_tokens + (tgt_id is not None),
        }
        if sampling is None:
            kwargs.update(do_sample=False, num_beams=self.spec.beam_size)
        else:
            # top_k off: only temperature and top_p shape the draw (a checkpoint's own
            # sampling defaults must not change what the cache key describes).
            kwargs.update(do_sample=True, num_beams=1, temperature=sampling.temperature, top_p=sampling.top_p, top_k=0)
            torch.manual_seed(sampling.seed)
        with torch.inference_mode():
            out = self.model.generate(
                input_ids=input_ids.to(self.input_device), attention_mask=attention.to(self.input_device), **kwargs
            )
        return [self.content_ids(row, tgt_id, self.start_id) for row in out.tolist()]

    def close(self) -> None:
        del self.model
        if self.torch.cuda.is_available():
            self.torch.cuda.empty_cache()


__all__ = ["TransformersTranslator"]

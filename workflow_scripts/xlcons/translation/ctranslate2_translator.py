"""The ``ctranslate2`` translator backend: dense NLLB or MADLAD converted to CTranslate2, int8 or float16.

What it feeds the model and how its output is read are the shared base's
(:mod:`xlcons.translation.translators`); this module loads the converted model
(:mod:`xlcons.translation.ctranslate2_conversion` makes it) on one device and decodes a
batch; sampling draws from one stream per loaded model.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from xlcons.translation.spec import TranslationError, TranslatorSpec, device_kind
from xlcons.translation.translators import Translator, register

log = logging.getLogger(__name__)


@register
class CTranslate2Translator(Translator):
    """Dense NLLB or MADLAD converted to CTranslate2 (see ``convert``): fast on CPU and GPU, int8 or float16.

    Runs on one device (``device_index`` 0): the batches come one at a time from the base,
    so further devices would idle; the MoE, which needs several GPUs, runs on transformers.
    Sampling draws from one stream per loaded model (see the module docstring).
    """

    name = "ctranslate2"
    seeds_each_sentence = False
    STREAM_SEED = 0

    def __init__(self, spec: TranslatorSpec):
        if spec.ct2_location is None or not (Path(spec.ct2_location) / "model.bin").is_file():
            raise TranslationError(
                f"translator: no CTranslate2 model at {spec.ct2_location!r}; convert the checkpoint first "
                "(xlcons.translation.ctranslate2_conversion.convert)"
            )
        # The converted directory carries the tokenizer; the checkpoint's is used when given.
        if spec.location is None or not Path(spec.location).is_dir():
            spec = replace(spec, location=None)
        super().__init__(spec)
        import ctranslate2

        self.ct2 = ctranslate2
        device = device_kind(spec.device)
        if device == "cuda" and ctranslate2.get_cuda_device_count() == 0:
            raise TranslationError("translator: device cuda asked for, but CTranslate2 sees no CUDA device")
        if spec.gpus > 1:
            log.warning(
                "translator: the ctranslate2 backend uses one GPU; gpus=%d is for the transformers MoE", spec.gpus
            )
        ctranslate2.set_random_seed(self.STREAM_SEED)  # read by the worker thread at its first draw
        try:
            self.model = ctranslate2.Translator(
                spec.ct2_location,
                device=device,
                device_index=0,
                compute_type=spec.compute_type,
                inter_threads=1,
                intra_threads=spec.threads,
            )
        except (RuntimeError, ValueError) as error:
            raise TranslationError(
                f"translator: cannot load the CTranslate2 model {spec.ct2_location}: {error}"
            ) from error
        log.info(
            "translator: CTranslate2 %s on %s, compute type %s", spec.ct2_location, device, self.model.compute_type
        )

    def _generate(self, batch, tgt, tgt_id, sampling):
        source = [self.tokenizer.convert_ids_to_tokens(list(ids)) for ids in batch]
        kwargs: dict[str, Any] = {
            # NLLB: the target tag starts the output (and counts in the length); MADLAD: no prefix.
            "target_prefix": None if tgt_id is None else [[tgt]] * len(source),
            "max_batch_size": self.spec.max_batch_tokens,
            "batch_type": "tokens",
            "max_input_length": 0,  # the base has cut already
            "max_decoding_length": self.spec.max_new_tokens + (tgt_id is not None),
        }
        if sampling is None:
            kwargs["beam_size"] = self.spec.beam_size
        else:
            kwargs.update(
                beam_size=1, sampling_topk=0, sampling_topp=sampling.top_p, sampling_temperature=sampling.temperature
            )
        results = self.model.translate_batch(source, **kwargs)
        outputs = []
        for result in results:
            ids = self.tokenizer.convert_tokens_to_ids(result.hypotheses[0])
            outputs.append(self.content_ids(ids, tgt_id))
        return outputs

    def close(self) -> None:
        self.model.unload_model()
        del self.model


__all__ = ["CTranslate2Translator"]

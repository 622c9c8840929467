"""Random-weight translators: the tiny NLLB (and its second draw, tiny-nllb-b), the tiny
MADLAD-400 and a tiny NllbMoe, each with a vocabulary trained on MultiQ prompts."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from .common import (
    SEED,
    TINY_INIT_STD,
    OfflineModelError,
    damp_special_tokens,
    multiq_inputs,
    multiq_prompts,
    one_line,
    save_tokenizer,
    seeded,
)

# Languages whose prompts (all 200 each) train the tiny NLLB vocabulary: the workflow's languages
# and a spread of scripts (Latin, Cyrillic, Greek, Hebrew, Arabic, Devanagari, Bengali, Thai,
# Hangul, Kana, Han).
TINY_NLLB_TRAIN_LANGUAGES = (
    "en", "de", "fr", "es", "pt", "it", "ru", "uk", "el", "he", "ar",
    "fa", "hi", "bn", "th", "sw", "vi", "tr", "ko", "ja", "zh-CN", "zh",
)  # fmt: skip

# The weights of tiny-nllb-b, the offline run's second translator.
TINY_NLLB_B_SEED = SEED + 1


def _nllb_language_codes() -> list[str]:
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    return list(FAIRSEQ_LANGUAGE_CODES)


def _train_sentencepiece(data_dir: Path, what: str, **options) -> bytes:
    """A SentencePiece model trained, seeded, on the MultiQ prompts of TINY_NLLB_TRAIN_LANGUAGES."""
    import sentencepiece as spm

    prompts = multiq_prompts(data_dir)
    missing = [lang for lang in TINY_NLLB_TRAIN_LANGUAGES if lang not in prompts]
    if missing:
        raise OfflineModelError(f"MultiQ lacks the languages {missing} that train the {what} vocabulary")
    sentences = [one_line(prompt) for language in TINY_NLLB_TRAIN_LANGUAGES for _, prompt in prompts[language]]
    spm.set_random_generator_seed(SEED)
    model = io.BytesIO()  # not model_prefix: that path would be recorded in the model
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences), model_writer=model, num_threads=1, minloglevel=2, **options
    )
    return model.getvalue()


def _train_tiny_nllb_sentencepiece(out_dir: Path, data_dir: Path) -> Path:
    model = _train_sentencepiece(
        data_dir,
        "tiny NLLB",
        model_type="bpe",
        vocab_size=1000,
        # Many scripts share 1000 pieces: 0.99 keeps each alphabet whole (under 0.5 % <unk> for
        # them), while rarer Han, Kana and Hangul characters become <unk> (about 10 % of the
        # tokens of Chinese, Japanese and Korean prompts). 0.9925 no longer fits in 1000.
        character_coverage=0.99,
        # NLLB's (fairseq's) special ids.
        bos_id=0,
        pad_id=1,
        eos_id=2,
        unk_id=3,
    )
    path = out_dir / "sentencepiece.bpe.model"
    path.write_bytes(model)
    return path


def make_tiny_nllb_b(target: Path, data_dir: Path) -> None:
    """A second tiny NLLB: the same vocabulary, weights drawn with another seed (the second
    translator of the offline run, whose spread against the first is what it measures)."""
    make_tiny_nllb(target, data_dir, seed=TINY_NLLB_B_SEED)


def make_tiny_nllb(target: Path, data_dir: Path, seed: int = SEED) -> None:
    from transformers import M2M100Config, M2M100ForConditionalGeneration, NllbTokenizer

    _train_tiny_nllb_sentencepiece(target, data_dir)
    # transformers 5: NllbTokenizer(vocab_file=...) ignores the file, but from_pretrained on a
    # directory holding sentencepiece.bpe.model converts it. The language codes must be passed
    # as extra special tokens, or every language tag is <unk>.
    tokenizer = NllbTokenizer.from_pretrained(
        str(target), extra_special_tokens=_nllb_language_codes(), src_lang="eng_Latn", model_max_length=256
    )
    config = M2M100Config(
        vocab_size=len(tokenizer),
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_position_embeddings=256,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,
        scale_embedding=True,
        tie_word_embeddings=True,
        init_std=TINY_INIT_STD,
    )
    with seeded(seed):
        model = M2M100ForConditionalGeneration(config)
    damp_special_tokens(model, tokenizer.all_special_ids)
    model.eval()
    model.save_pretrained(str(target))
    save_tokenizer(tokenizer, target)
    verify_tiny_nllb(target)


def verify_tiny_nllb(model_dir: Path) -> None:
    """Cheap self-check: the saved directory loads back, tags languages and generates."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True, src_lang="deu_Latn")
    codes = _nllb_language_codes()
    ids = tokenizer.convert_tokens_to_ids(codes)
    if tokenizer.unk_token_id in ids or len(set(ids)) != len(codes):
        raise OfflineModelError(f"tiny NLLB tokenizer in {model_dir} does not map the NLLB language codes")
    eng = tokenizer.convert_tokens_to_ids("eng_Latn")
    model = AutoModelForSeq2SeqLM.from_pretrained(str(model_dir), local_files_only=True)
    batch = tokenizer(["Wie lautet die chemische Formel für Wasser?"], return_tensors="pt")
    if batch["input_ids"][0, 0].item() != tokenizer.convert_tokens_to_ids("deu_Latn"):
        raise OfflineModelError("tiny NLLB tokenizer does not prefix the source language code")
    with torch.no_grad():
        out = model.generate(**batch, forced_bos_token_id=eng, max_new_tokens=4, num_beams=1, do_sample=False)
    if out.shape[1] < 3 or out[0, 1].item() != eng:
        raise OfflineModelError(f"tiny NLLB in {model_dir} does not generate target-tagged output: {out.tolist()}")


# Tiny MADLAD-400: romanised variants MADLAD also has, so the vocabulary holds a tag in another script
# of a language that must not be taken for the language's own (hin_Deva is <2hi>, not <2hi_Latn>).
TINY_MADLAD_EXTRA_TAGS = ("<2hi_Latn>", "<2zh_Latn>")
# T5's own initialisation (embeddings at std 1 × factor): at 1 greedy decoding repeats one token
# and the target tag hardly matters; at 2 the output depends on the sentence and on the tag.
TINY_MADLAD_INIT_FACTOR = 2.0
TINY_MADLAD_SPECIAL_IDS = {"pad_id": 0, "eos_id": 1, "unk_id": 2, "bos_id": -1}  # T5's (no <s>)
TINY_MADLAD_CHECK_TAGS = ("<2en>", "<2de>", "<2ar>", "<2hi>", "<2zh>", "<2ja>")


def tiny_madlad_tags() -> list[str]:
    """The ``<2xx>`` target tags of the tiny MADLAD: one for each language of config/languages.tsv
    that has an NLLB code (canonical codes only, as MADLAD has ``<2he>`` but no ``<2iw>``;
    ``<2zh_Hant>`` for zh-TW, a code with a region), then ``TINY_MADLAD_EXTRA_TAGS``."""
    from xlcons.languages import LanguageRegistry

    tags = []
    for language in LanguageRegistry.load():
        if language.nllb is None or language.code != language.canonical:
            continue
        primary, _, region = language.code.partition("-")
        tags.append(f"<2{primary}_{language.nllb.split('_')[1]}>" if region else f"<2{language.code}>")
    return list(dict.fromkeys([*tags, *TINY_MADLAD_EXTRA_TAGS]))


def tiny_madlad_inputs(data_dir: Path | None) -> dict[str, Path]:
    from xlcons.languages import REGISTRY_PATH

    return {**multiq_inputs(data_dir), "languages.tsv": REGISTRY_PATH}


def _train_tiny_madlad_sentencepiece(out_dir: Path, data_dir: Path, tags: Sequence[str]) -> Path:
    """A unigram SentencePiece model like T5's (pad 0, </s> 1, <unk> 2, no <s>), the tags as user-defined pieces."""
    model = _train_sentencepiece(
        data_dir,
        "tiny MADLAD",
        model_type="unigram",
        vocab_size=1200,  # the tags included
        character_coverage=0.99,  # as the tiny NLLB's
        user_defined_symbols=list(tags),
        **TINY_MADLAD_SPECIAL_IDS,
    )
    path = out_dir / "spiece.model"
    path.write_bytes(model)
    return path


def make_tiny_madlad(target: Path, data_dir: Path) -> None:
    """A MADLAD-400-shaped translator: T5 v1.1 (gated GELU, decoder outputs not scaled), random weights."""
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    tags = tiny_madlad_tags()
    _train_tiny_madlad_sentencepiece(target, data_dir, tags)
    # From the directory holding spiece.model: transformers converts it, and the user-defined
    # pieces become (non-special) added tokens, as in MADLAD's own tokenizer. No sentinels.
    tokenizer = T5Tokenizer.from_pretrained(str(target), extra_ids=0, model_max_length=256)
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=64,
        d_kv=16,
        d_ff=128,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        feed_forward_proj="gated-gelu",
        # T5 v1.1 (MADLAD): no output scaling. transformers 5 ties the weights all the same and
        # records the difference as scale_decoder_outputs=False.
        tie_word_embeddings=False,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
        initializer_factor=TINY_MADLAD_INIT_FACTOR,
    )
    with seeded():
        model = T5ForConditionalGeneration(config)
    # Tags too: with tied embeddings a tag could otherwise be generated (and it is not skipped in decoding).
    damp_special_tokens(model, [*tokenizer.all_special_ids, *tokenizer.convert_tokens_to_ids(tags)])
    model.eval()
    model.save_pretrained(str(target))
    save_tokenizer(tokenizer, target)
    verify_tiny_madlad(target)


def verify_tiny_madlad(model_dir: Path) -> None:
    """Cheap self-check: the saved directory loads back, knows the tags and generates from the pad token."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    tags = tiny_madlad_tags()
    ids = tokenizer.convert_tokens_to_ids(tags)
    if tokenizer.unk_token_id in ids or len(set(ids)) != len(tags) or not set(TINY_MADLAD_CHECK_TAGS) <= set(tags):
        raise OfflineModelError(f"tiny MADLAD tokenizer in {model_dir} does not map the <2xx> tags")
    sentence = "Wie lautet die chemische Formel für Wasser?"
    batch = tokenizer([f"<2en> {sentence}"], return_tensors="pt")
    expected = [
        tokenizer.convert_tokens_to_ids("<2en>"),
        *tokenizer(sentence, add_special_tokens=False)["input_ids"],
        tokenizer.eos_token_id,
    ]
    if batch["input_ids"][0].tolist() != expected:
        raise OfflineModelError(
            f"tiny MADLAD tokenizer does not read '<2en> …' as the tag and the sentence: {expected}"
        )
    model = AutoModelForSeq2SeqLM.from_pretrained(str(model_dir), local_files_only=True)
    if model.config.decoder_start_token_id != tokenizer.pad_token_id or model.config.scale_decoder_outputs:
        raise OfflineModelError(
            f"tiny MADLAD in {model_dir} is not T5 v1.1-shaped (decoder start pad, unscaled outputs)"
        )
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=4, num_beams=1, do_sample=False)[0].tolist()
    if len(out) != 5 or out[0] != tokenizer.pad_token_id or set(out[1:]) & {*tokenizer.all_special_ids, *ids}:
        raise OfflineModelError(f"tiny MADLAD in {model_dir} does not generate plain tokens after the pad: {out}")


def write_tiny_nllb_moe(tokenizer_dir: Path | str, out_dir: Path | str, seed: int = 0) -> Path:
    """A random-weight NllbMoe (2 experts, 2+2 layers) with the tokenizer of ``tokenizer_dir``
    (the tiny NLLB's), in ``out_dir``: the 54B MoE's code path in a few MB. Not cached; built
    in a second where a test or a benchmark needs it."""
    import torch
    from transformers import AutoTokenizer, NllbMoeConfig, NllbMoeForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir), local_files_only=True)
    config = NllbMoeConfig(
        vocab_size=len(tokenizer),
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        num_experts=2,
        expert_capacity=8,
        encoder_sparse_step=2,
        decoder_sparse_step=2,
        max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    out_dir = Path(out_dir)
    NllbMoeForConditionalGeneration(config).save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir

"""What of an answer to a FLORES translation request is scored (`answer: answer`, the default):
chat models' wrapping removed in each of the 12 languages of Xing et al. 2024, base models' first
line kept. Every answer here is written the way such models write them; the translation
must come out exactly."""

from __future__ import annotations

import pytest

from xlcons.evaluators.translation_ability import scored_text

# One sentence, translated by hand into the 12 languages (FLORES-like: one line, ends with a full stop).
SENTENCES = {
    "en": "The museum, which opened in 1998, attracts more than two million visitors every year.",
    "de": "Das Museum, das 1998 eröffnet wurde, zieht jedes Jahr mehr als zwei Millionen Besucher an.",
    "fr": "Le musée, ouvert en 1998, attire chaque année plus de deux millions de visiteurs.",
    "es": "El museo, que abrió sus puertas en 1998, atrae a más de dos millones de visitantes cada año.",
    "it": "Il museo, inaugurato nel 1998, attira ogni anno più di due milioni di visitatori.",
    "pt": "O museu, inaugurado em 1998, atrai mais de dois milhões de visitantes por ano.",
    "nl": "Het museum, dat in 1998 werd geopend, trekt jaarlijks meer dan twee miljoen bezoekers.",
    "ru": "Музей, открытый в 1998 году, ежегодно привлекает более двух миллионов посетителей.",
    "el": "Το μουσείο, που άνοιξε το 1998, προσελκύει κάθε χρόνο περισσότερους από δύο εκατομμύρια επισκέπτες.",
    "zh": "该博物馆于1998年开馆，每年吸引超过两百万名游客。",
    "ja": "1998年に開館したこの博物館には、毎年200万人以上が訪れる。",
    "ko": "1998년에 개관한 이 박물관은 매년 200만 명 이상의 방문객을 끌어들인다.",
}
NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "ru": "Russian",
    "el": "Greek",
    "zh": "Chinese (Simplified)",
    "ja": "Japanese",
    "ko": "Korean",
}
NATIVE = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "it": "Italiano",
    "pt": "Português",
    "nl": "Nederlands",
    "ru": "Русский",
    "el": "Ελληνικά",
    "zh": "中文",
    "ja": "日本語",
    "ko": "한국어",
}
TRANSLATION_WORD = {
    "en": "Translation",
    "de": "Übersetzung",
    "fr": "Traduction",
    "es": "Traducción",
    "it": "Traduzione",
    "pt": "Tradução",
    "nl": "Vertaling",
    "ru": "Перевод",
    "el": "Μετάφραση",
    "zh": "翻译",
    "ja": "翻訳",
    "ko": "번역",
}

# A chat model answering in the target language: its preamble, the translation in the
# language's quotes (or markdown), and often a note or a closing wish.
CHAT_IN_TARGET_LANGUAGE = {
    "en": 'Sure! Here is the translation:\n\n"{t}"\n\nI hope this helps!',
    "de": "Gerne! Hier ist die Übersetzung ins Deutsche:\n\n„{t}“\n\nHinweis: "
    "„eröffnet“ kann auch mit „eingeweiht“ wiedergegeben werden.",
    "fr": "Bien sûr ! Voici la traduction en français :\n\n« {t} "
    "»\n\nRemarque : j'ai conservé la structure de la phrase d'origine.",
    "es": '¡Claro! Aquí tienes la traducción al español:\n\n"{t}"\n\n¡Espero que te sea útil!',
    "it": "Certo! Ecco la traduzione in italiano:\n\n**{t}**",
    "pt": "Claro! Aqui está a tradução para o português:\n\n> {t}\n\nEspero ter ajudado!",
    "nl": "Natuurlijk! Hier is de vertaling in het "
    "Nederlands:\n\n\"{t}\"\n\n(Opmerking: 'jaarlijks' kan ook 'elk jaar' zijn.)",
    "ru": "Конечно! Вот перевод на русский язык:\n\n«{t}»\n\nПримечание: "
    "слово «привлекает» можно заменить на «принимает».",
    "el": "Φυσικά! Ορίστε η μετάφραση στα ελληνικά:\n\n«{t}»",
    "zh": "好的，以下是中文翻译：\n\n“{t}”\n\n希望对您有帮助！",
    "ja": "はい、日本語訳は以下の通りです。\n\n「{t}」\n\n※「訪れる」は「来館する」とも訳せます。",
    "ko": '물론입니다! 다음은 한국어 번역입니다:\n\n"{t}"\n\n도움이 되셨길 바랍니다!',
}

# The same in English (the prompt's language), and the label forms.
CHAT_IN_ENGLISH = (
    "Sure! Here's the {name} translation of the sentence:\n\n{t}\n\nNote: the word order follows {name} conventions.",
    "Certainly. Here is the translation into {name}:\n\n**{t}**\n\nLet me know if you need anything else!",
    "Here is the translation.\n\n```\n{t}\n```",
    "{name}:\n{t}",
    "**{name} translation:** {t} (Note: this is a fairly literal translation.)",
    "Translation: {t}\n\nExplanation: the relative clause is kept.",
    "### {name}\n\n{t}",
    "English: " + SENTENCES["en"] + "\n{name}: {t}",  # the source echoed before the answer
)
LABELS = ("{native}:\n{t}", "{word}: {t}", "**{word}:**\n\n{t}", "{native} {word_lower}:\n\n{t}")


@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_a_chat_answer_in_the_target_language_gives_the_translation_exactly(lang):
    answer = CHAT_IN_TARGET_LANGUAGE[lang].format(t=SENTENCES[lang])
    assert scored_text(answer, NAMES[lang], target=lang) == SENTENCES[lang]


@pytest.mark.parametrize("lang", sorted(SENTENCES))
@pytest.mark.parametrize("template", CHAT_IN_ENGLISH)
def test_a_chat_answer_in_english_gives_the_translation_exactly(lang, template):
    if lang == "en" and template.startswith("English: "):
        pytest.skip("no source echo when the target is English")
    answer = template.format(name=NAMES[lang], t=SENTENCES[lang])
    assert scored_text(answer, NAMES[lang], target=lang) == SENTENCES[lang]


@pytest.mark.parametrize("lang", sorted(SENTENCES))
@pytest.mark.parametrize("template", LABELS)
def test_a_label_in_the_target_language_is_removed(lang, template):
    word = TRANSLATION_WORD[lang]
    answer = template.format(
        native=NATIVE[lang], word=word, word_lower=word if lang == "de" else word.lower(), t=SENTENCES[lang]
    )
    assert scored_text(answer, NAMES[lang], target=lang) == SENTENCES[lang]


@pytest.mark.parametrize(
    ("quoted", "lang"),
    [
        ("“{t}”", "en"),
        ("„{t}“", "de"),
        ("„{t}”", "nl"),
        ("«{t}»", "fr"),
        ("« {t} »", "fr"),
        ("«{t}»", "ru"),
        ("»{t}«", "de"),
        ("「{t}」", "ja"),
        ("『{t}』", "ja"),
        ("“{t}”", "zh"),
        ("'{t}'", "it"),
        ("‘{t}’", "en"),
        ("`{t}`", "en"),
        ("*{t}*", "es"),
        ('"{t}"', "ko"),
        ("“{t}”", "el"),
        ('"{t}"', "pt"),
    ],
)
def test_quotes_enclosing_the_whole_translation_are_removed(quoted, lang):
    assert scored_text(quoted.format(t=SENTENCES[lang]), NAMES[lang], target=lang) == SENTENCES[lang]


def test_quotes_that_do_not_enclose_the_whole_text_and_apostrophes_stay():
    speech = '"We are ready," the minister said, "and we will start tomorrow."'
    assert scored_text(speech, "English", target="en") == speech, "two quotations, not one enclosing pair"
    assert scored_text("«Oui», a-t-il dit.", "French", target="fr") == "«Oui», a-t-il dit."
    assert scored_text("'L'eau est froide.'", "French", target="fr") == "L'eau est froide.", (
        "an apostrophe inside a word is no quote"
    )
    assert scored_text('"The river froze early".', "English", target="en") == "The river froze early.", (
        "the full stop after the quote kept"
    )


def test_notes_on_the_translation_line_are_removed():
    t = SENTENCES["fr"]
    for note in (
        " (Note: « ouvert » could also be « inauguré ».)",
        " (Remarque : traduction littérale.)",
        " Note: a literal translation.",
        " I hope this helps!",
        " Let me know if you need more.",
    ):
        assert scored_text(t + note, "French", target="fr") == t, note
    assert scored_text(SENTENCES["zh"] + "（注：这是直译。）", "Chinese (Simplified)", target="zh") == SENTENCES["zh"]
    assert scored_text(SENTENCES["de"] + " (Hinweis: wörtlich übersetzt.)", "German", target="de") == SENTENCES["de"]
    # A note word inside the sentence, not after its end, is the sentence's.
    assert (
        scored_text("Note: the museum is closed on Mondays.", "English", target="en")
        == "Note: the museum is closed on Mondays."
    )


def test_a_base_models_continuation_after_the_first_line_is_dropped():
    de, en = SENTENCES["de"], SENTENCES["en"]
    # The first line is the answer; the model goes on with the prompt's pattern, or repeats itself.
    assert scored_text(f" {de}\n\nEnglish: The cat sleeps.\nGerman: Die Katze schläft.", "German", target="de") == de
    assert scored_text(f"{de}\n{de}\n{de}", "German", target="de") == de
    assert scored_text(f"{de} Das Museum ist montags geschlossen.\nEs liegt", "German", target="de") == (
        f"{de} Das Museum ist montags geschlossen."
    ), "a continuation on the same line stays (as with first_line)"
    # A sentence that speaks of translating and of what follows is not a preamble.
    sentence = "The following year, the novel was translated into twenty languages."
    assert scored_text(f"{sentence}\nFrench: L'année suivante", "English", target="en") == sentence
    assert scored_text(f"{en}\n\nTranslate this sentence from English into German.", "English", target="en") == en
    # After a label line, the line under it is the answer, and what follows is dropped as well.
    assert scored_text(f"German:\n{de}\nEnglish: The cat sleeps.", "German", target="de") == de


def test_nothing_but_wrapping_is_the_empty_translation():
    assert scored_text("German:", "German", target="de") == ""
    assert scored_text("Sure! Here is the translation:\n\n```\n```", "German", target="de") == ""
    assert scored_text("", "German", target="de") == ""


def test_another_target_languages_registry_name_is_a_label_too():
    sentence = "Jumba la makumbusho lilifunguliwa mwaka 1998."
    assert scored_text(f"Swahili:\n{sentence}", "Swahili", target="sw") == sentence
    assert scored_text(f'Here is the Swahili translation:\n\n"{sentence}"', "Swahili", target="sw") == sentence


def test_the_extraction_is_the_default_and_the_other_modes_are_unchanged():
    answer = "Sure! Here is the translation:\n\nDer Fluss.\n\nNote: literal."
    assert scored_text(answer, "German", target="de") == "Der Fluss."
    assert scored_text(answer, "German", "first_line", "de") == "Sure! Here is the translation:"
    assert scored_text(answer, "German", "whole", "de") == answer
    assert scored_text("German:\nDer Fluss.", "German", "first_line", "de") == ""


def test_sentences_that_look_like_wrapping_in_part_are_kept():
    # A colon inside the sentence, after words that are no label.
    assert (
        scored_text("Le bilan : 12 morts et 40 blessés.", "French", target="fr") == "Le bilan : 12 morts et 40 blessés."
    )
    # A bracketed note word inside the sentence, not ending it.
    assert (
        scored_text("Il museo (nota: chiuso il lunedì) apre alle 9.", "Italian", target="it")
        == "Il museo (nota: chiuso il lunedì) apre alle 9."
    )
    assert (
        scored_text(
            "Il museo (nota: chiuso il lunedì) apre alle 9. (Nota: traduzione letterale.)", "Italian", target="it"
        )
        == "Il museo (nota: chiuso il lunedì) apre alle 9."
    ), "only the note that ends the line goes"
    # A line ending in a colon with nothing after it is the answer; with a line after it, it is
    # a preamble by its structure, in whatever language ("Zde je překlad:", "الترجمة:").
    assert scored_text("Er sagte Folgendes:", "German", target="de") == "Er sagte Folgendes:"
    assert scored_text("Er sagte Folgendes:\nWir werden gewinnen.", "German", target="de") == "Wir werden gewinnen."
    # An acknowledgement word opening a sentence.
    assert (
        scored_text("Sure enough, the river froze early.\nGerman:", "English", target="en")
        == "Sure enough, the river froze early."
    )

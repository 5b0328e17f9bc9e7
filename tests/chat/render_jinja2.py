#!/usr/bin/python3
"""Renders chat templates with Jinja2 exactly as Hugging Face transformers does
(chat_template_utils.py _compile_jinja_template / render_jinja_template): an
ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with the loopcontrols
extension, tojson = json.dumps(ensure_ascii=False, ...), raise_exception, strftime_now; variables
messages, tools=None, documents=None, add_generation_prompt, the special tokens of
tokenizer_config.json, then the kwargs. The reference of ctest peer_chat_templates
(tests/chat/test_chat_templates.sh), which renders the same with `llm0 tokenizer chat`.

Usage: render_jinja2.py CONVERSATIONS.json OUT_DIR KWARGS_JSON MODEL_DIR...
Writes OUT_DIR/<conversation>.json (its messages) and OUT_DIR/<model>__<conversation>__<0|1>.txt (the rendered text, bytes as UTF-8; 1 = with
add_generation_prompt) or .err (the message Jinja2 raised) for every pair. Exit 77 when jinja2
is missing (Debian: apt-get install python3-jinja2).
"""
import json
import os
import sys
from datetime import datetime

try:
    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment
except ImportError:
    print("skipped: python3-jinja2 is not installed (Debian: apt-get install python3-jinja2)")
    sys.exit(77)

SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return datetime(2024, 7, 26).strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def template_and_tokens(model_dir):
    with open(os.path.join(model_dir, "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    tokens = {}
    for name in SPECIAL:
        v = config.get(name)
        if isinstance(v, dict):
            v = v["content"]
        if v is not None:
            tokens[name] = v
    return config["chat_template"], tokens


def main():
    conversations_path, out_dir, kwargs_json, *models = sys.argv[1:]
    with open(conversations_path, encoding="utf-8") as f:
        conversations = json.load(f)
    kwargs = json.loads(kwargs_json)
    env = environment()
    for case, messages in conversations.items():
        with open(os.path.join(out_dir, case + ".json"), "w", encoding="utf-8") as f:
            json.dump(messages, f, ensure_ascii=False)
    for model_dir in models:
        source, tokens = template_and_tokens(model_dir)
        template = env.from_string(source)
        name = os.path.basename(os.path.dirname(os.path.normpath(model_dir))).replace("tokenizer-", "")
        for case, messages in conversations.items():
            for gen in (0, 1):
                stem = os.path.join(out_dir, f"{name}__{case}__{gen}")
                try:
                    text = template.render(messages=messages, tools=None, documents=None,
                                           add_generation_prompt=bool(gen), **tokens, **kwargs)
                except Exception as e:  # the template refused (raise_exception) or failed
                    with open(stem + ".err", "w", encoding="utf-8") as f:
                        f.write(f"{type(e).__name__}: {e}\n")
                    continue
                with open(stem + ".txt", "wb") as f:
                    f.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()

// The Jinja subset of src/chat/ piece by piece, without Python: each expected text below is what
// Jinja2 3.1 renders for the same template with transformers' settings (trim_blocks,
// lstrip_blocks, loopcontrols, tojson = json.dumps(ensure_ascii=False)), computed once with
// Debian's python3-jinja2 and written here. Whole published templates are compared with Jinja2
// itself in ctest peer_chat_templates (tests/chat/test_chat_templates.sh). Also: what the subset
// refuses, by name and line; strftime_now through an injected clock; loading a model
// directory's template and special tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "chat/chat_template.h"
#include "chat/jinja_error.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::chat;

namespace {

std::string render(const std::string& source, const Dict& vars = {}) { return JinjaTemplate(source).render(vars); }

// The message of the TemplateError that rendering `source` throws ("" if none).
std::string error_of(const std::string& source, const Dict& vars = {}) {
  try {
    render(source, vars);
  } catch (const TemplateError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ChatJinja, ArithmeticAndComparisonsArePython) {
  EXPECT_EQ(render("{{ 1 + 2 * 3 }}|{{ 7 // 2 }}|{{ -7 // 2 }}|{{ -7 % 3 }}|{{ 7 / 2 }}|{{ 2 ** 10 }}|{{ 1 ~ 2 }}|"
                   "{{ \"a\" + \"b\" }}"),
            "7|3|-4|2|3.5|1024|12|ab");
  EXPECT_EQ(render("{{ 1 < 2 < 3 }}|{{ 3 > 2 > 2 }}|{{ \"b\" in \"abc\" }}|{{ 2 not in [1,3] }}|{{ 1 == 1.0 }}|"
                   "{{ true == 1 }}"),
            "True|False|True|True|True|True");
}

TEST(ChatJinja, SlicesAndLengthsCountCodePoints) {
  EXPECT_EQ(render("{{ \"中文abc\"[::-1] }}|{{ \"中文abc\"[1:3] }}|{{ [1,2,3,4][-2:] }}|{{ \"中文\"|length }}|"
                   "{{ [1,2,3][-1] }}"),
            "cba文中|文a|[3, 4]|2|3");
}

TEST(ChatJinja, ValuesPrintAsPythonStr) {
  EXPECT_EQ(render("{{ x if x else \"none\" }}|{{ none }}|{{ [1, \"a\", none, true, 1.5] }}|{{ {\"k\": \"v\"} }}|"
                   "{{ 1e20 }}|{{ 0.1 + 0.2 }}|{{ 1e-05 }}|{{ 3.0 }}"),
            "none|None|[1, 'a', None, True, 1.5]|{'k': 'v'}|1e+20|0.30000000000000004|1e-05|3.0");
  EXPECT_EQ(render("{{ {\"a\": 1}|items|list }}"), "[('a', 1)]");
}

TEST(ChatJinja, Filters) {
  EXPECT_EQ(render("{{ \"  a b  \"|trim }}|{{ \"Hi\"|upper }}{{ \"Hi\"|lower }}|{{ \"hello world\"|title }}|"
                   "{{ \"hELLO\"|capitalize }}|{{ [1,2]|join(\", \") }}|{{ x|default(\"d\") }}|"
                   "{{ \"\"|default(\"d\", true) }}|{{ 5|string }}"),
            "a b|HIhi|Hello World|Hello|1, 2|d|d|5");
  EXPECT_EQ(render("{{ {\"a\": [1, 2.5, \"中\", none, true], \"b\": {}}|tojson }}|"
                   "{{ {\"b\": 1, \"a\": [1]}|tojson(indent=2) }}|{{ \"q\\\"\\n\\u00e9\"|tojson }}"),
            "{\"a\": [1, 2.5, \"中\", null, true], \"b\": {}}|{\n  \"b\": 1,\n  \"a\": [\n    1\n  ]\n}|"
            "\"q\\\"\\né\"");
  EXPECT_EQ(render("{{ [{\"r\": \"a\", \"v\": 1}, {\"r\": \"b\", \"v\": 2}]|selectattr(\"r\", \"equalto\", \"b\")"
                   "|map(attribute=\"v\")|list }}|{{ [{\"r\": \"a\"}, {\"r\": \"b\"}]|rejectattr(\"r\", \"equalto\", "
                   "\"b\")|list|length }}|{{ [3,1]|first }}{{ [3,1]|last }}"),
            "[2]|1|31");
}

TEST(ChatJinja, StringAndDictMethods) {
  EXPECT_EQ(render("{{ \" a  b \".split() }}|{{ \"a,b,,c\".split(\",\") }}|{{ \"a,b,c\".split(\",\", 1) }}|"
                   "{{ \"xxhixx\".strip(\"x\") }}|{{ \"hi\".startswith(\"h\") }}|{{ \"hi\".endswith((\"x\", \"i\")) }}|"
                   "{{ \"a-b\".replace(\"-\", \"+\") }}"),
            "['a', 'b']|['a', 'b', '', 'c']|['a', 'b,c']|hi|True|True|a+b");
  EXPECT_EQ(render("{% for k, v in {\"a\": 1, \"b\": 2}.items() %}{{ loop.index0 }}{{ k }}={{ v }}"
                   "{% if not loop.last %},{% endif %}{% endfor %}|{{ {\"a\": 1}.get(\"z\", 9) }}|"
                   "{{ {\"a\": 1}.get(\"a\") }}"),
            "0a=1,1b=2|9|1");
}

TEST(ChatJinja, LoopsScopesAndNamespaces) {
  // A set inside a loop is gone after it (hence namespace()); break and continue (loopcontrols).
  EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for i in range(5) %}{% if i == 3 %}{% break %}{% endif %}"
                   "{% if i == 1 %}{% continue %}{% endif %}{% set ns.n = ns.n + i %}{% set local = i %}"
                   "{% endfor %}{{ ns.n }}|{{ local is defined }}"),
            "2|False");
  EXPECT_EQ(render("{% for x in [] %}a{% else %}empty{% endfor %}|"
                   "{% for x in [1,2,3,4] if x is even %}{{ x }}{{ loop.length }}{% endfor %}"),
            "empty|2242");
  EXPECT_EQ(render("{% macro greet(name, punct=\"!\") %}Hi {{ name }}{{ punct }}{% endmacro %}"
                   "{{ greet(\"A\") }}{{ greet(\"B\", punct=\"?\") }}"),
            "Hi A!Hi B?");
}

TEST(ChatJinja, SetBlocksAndTests) {
  EXPECT_EQ(render("{% set block %}  x {{ 1 }}{% endset %}[{{ block }}]|{{ x is none }}{{ none is none }}"
                   "{{ \"s\" is string }}{{ {} is mapping }}{{ [] is iterable }}{{ 3 is number }}{{ 3 is odd }}"
                   "{{ false is false }}"),
            "[  x 1]|FalseTrueTrueTrueTrueTrueTrueTrue");
}

TEST(ChatJinja, WhitespaceControlAsTransformersSetsIt) {
  // trim_blocks + lstrip_blocks, and one trailing newline of the source dropped.
  EXPECT_EQ(render("a\n  {% if true %}\n  b\n  {% endif %}\nc\n"), "a\n  b\nc");
  EXPECT_EQ(render("a  {%- if true -%}  b  {%- endif %}\nc"), "abc");
  EXPECT_EQ(render("  {{ 1 }}\n{# comment #}\nx {#- c -#} y\n"), "  1\nxy");
  EXPECT_EQ(render("{%+ if true %}\n  k{% endif +%}\nz"), "  k\nz");
  EXPECT_EQ(render("x\r\ny"), "x\ny");
}

TEST(ChatJinja, RefusesWhatItLacksByNameAndLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"a\n{{ x | wordcount }}", "the filter 'wordcount' is not supported (line 2)"},
      {"{{ 3 is prime }}", "the test 'prime' is not supported (line 1)"},
      {"\n\n{% include 'x' %}", "the statement 'include' is not supported (line 3)"},
      {"{{ 'a'.format(1) }}", "the method 'str.format' is not supported (line 1)"},
      {"{{ cycler(1) }}", "the function 'cycler' is not supported (line 1)"},
      {"{% set x = [] %}{{ x.append(1) }}",
       "the method 'list.append' is not supported (a chat template may not change a value) (line 1)"},
      {"{% for x in y %}\nno end", "the 'for' of line 1 is never closed with 'endfor' (line 2)"},
      {"{% endif %}", "unexpected 'endif': no open block it could end (line 1)"},
  };
  for (const auto& [source, message] : cases) EXPECT_EQ(error_of(source), std::string("chat template: ") + message);
}

TEST(ChatJinja, FailsWhereJinja2Fails) {
  const std::pair<const char*, const char*> cases[] = {
      {"{{ x.y }}", "'x' is undefined (line 1)"},
      {"{{ 'a' + 1 }}", "unsupported operand type(s) for +: 'str' and 'int' (line 1)"},
      {"\n{{ raise_exception('Roles must alternate') }}",
       "the template refused the conversation: Roles must alternate (line 2)"},
  };
  for (const auto& [source, message] : cases) EXPECT_EQ(error_of(source), std::string("chat template: ") + message);
  EXPECT_EQ(error_of("{% for m in messages %}{% endfor %}", {{"messages", Value::none()}}),
            "chat template: 'NoneType' object is not iterable (line 1)");
  // An undefined value is fine where Jinja2's Undefined is: printed, tested, iterated, defaulted.
  EXPECT_EQ(render("[{{ y }}]{{ y is defined }}{% for a in y %}x{% endfor %}{{ y|length }}"), "[]False0");
}

TEST(ChatJinja, StrftimeNowReadsTheInjectedClock) {
  std::tm day{};
  day.tm_year = 2024 - 1900, day.tm_mon = 6, day.tm_mday = 26;
  const JinjaTemplate t("Today: {{ strftime_now('%d %b %Y') }}");
  EXPECT_EQ(t.render({}, [day] { return day; }), "Today: 26 Jul 2024");
}

TEST(ChatTemplateDir, LoadsTheTemplateAndItsSpecialTokens) {
  namespace fs = std::filesystem;
  const std::string dir = test::fresh_temp_path("chat_jinja", "model");
  fs::create_directories(dir);
  EXPECT_FALSE(load_chat_template(dir).has_value());  // no tokenizer_config.json: the plain template
  {
    std::ofstream f(dir + "/tokenizer_config.json");
    f << R"({"bos_token": {"__type": "AddedToken", "content": "<s>"}, "eos_token": "</s>", "pad_token": null,
             "chat_template": [{"name": "tool_use", "template": "T"},
                               {"name": "default", "template": "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}{{ extra|default('') }}"}]})";
  }
  std::optional<ChatTemplate> t = load_chat_template(dir);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->origin, "tokenizer_config.json");
  EXPECT_EQ(t->bos_token, "<s>");
  EXPECT_EQ(t->eos_token, "</s>");
  const nlohmann::ordered_json messages = nlohmann::ordered_json::parse(
      R"([{"role": "user", "content": "你好"}, {"role": "assistant", "content": ""}])");
  EXPECT_EQ(t->render(messages, false), "<s>[user] 你好</s>[assistant] </s>");
  EXPECT_EQ(t->render(messages, true, nlohmann::ordered_json::parse(R"({"extra": "!"})")),
            "<s>[user] 你好</s>[assistant] </s>[assistant]!");
  EXPECT_THROW(t->render(messages, true, nlohmann::ordered_json::parse(R"({"messages": []})")), Error);
  // chat_template.jinja beside it wins, as in transformers.
  { std::ofstream(dir + "/chat_template.jinja") << "J{{ messages|length }}\n"; }
  t = load_chat_template(dir);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->origin, "chat_template.jinja");
  EXPECT_EQ(t->render(messages, false), "J2");
  // A template that does not parse is refused naming the file.
  { std::ofstream(dir + "/chat_template.jinja") << "{% if %}"; }
  try {
    load_chat_template(dir);
    ADD_FAILURE() << "a broken template loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("chat_template.jinja: chat template: expected an expression"),
              std::string::npos) << e.what();
  }
}

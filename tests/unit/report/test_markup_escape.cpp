// report/markup_escape.hpp: the one escaper of the HTML pages and the JUnit
// XML. Both escape the five characters markup gives a meaning to; they part
// only on the apostrophe and on the control characters XML 1.0 cannot hold.

#include <catch2/catch.hpp>

#include <string>

#include "report/html_format.hpp"
#include "report/markup_escape.hpp"
#include <twice/report/junit.hpp>

using twice::escape_markup;
using twice::markup;

TEST_CASE("markup text: the five escapes, then what each dialect's readers need", "[report][html][junit]") {
  const std::string text = "a<b>&\"c\" d'e";
  CHECK(escape_markup(text, markup::html) == "a&lt;b&gt;&amp;&quot;c&quot; d&#39;e");
  CHECK(escape_markup(text, markup::xml10) == "a&lt;b&gt;&amp;&quot;c&quot; d&apos;e");
  // Tab, line feed and carriage return are XML 1.0 characters; the other
  // controls are not, even escaped: a JUnit reader would refuse the file.
  const std::string controls = std::string("x\t\n\ry") + '\x01' + '\x1f' + "z\x7f";
  CHECK(escape_markup(controls, markup::xml10) == "x\t\n\ry??z\x7f");
  CHECK(escape_markup(controls, markup::html) == controls);
  // UTF-8 passes as it is.
  CHECK(escape_markup("\xe2\x80\x94 \xc3\xa4", markup::xml10) == "\xe2\x80\x94 \xc3\xa4");
  // The report's esc is the HTML dialect.
  CHECK(twice::html_detail::esc(text) == escape_markup(text, markup::html));
}

TEST_CASE("JUnit XML holds any text a run writes in a failure", "[report][junit]") {
  twice::junit_case failed{"inv's", "s", std::string("bad\x02 <thing>"), "line 1\nline 2\x1b\n", std::nullopt};
  const std::string xml = twice::junit_xml("twice run", {twice::junit_suite{"twice run s", "s.toml", {failed}}});
  CHECK(xml.find("<testcase name=\"inv&apos;s\" classname=\"s\">") != std::string::npos);
  CHECK(xml.find("<failure message=\"bad? &lt;thing&gt;\" type=\"twice\">line 1\nline 2?\n</failure>") !=
        std::string::npos);
}

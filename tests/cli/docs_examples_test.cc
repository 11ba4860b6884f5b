// Every example that README.md, docs/cli.md, docs/python.md and
// docs/inspector.md show, run in order against a temporary store, exactly as
// written, and checked against the output the text shows for it. The
// examples are read from the markdown's ```sh and ```python blocks when the
// test runs, so a new example is covered without touching this file. A
// whole block that cannot run here carries `<!-- docs-test: skip (REASON)
// -->` in the document; single commands are skipped by the list below, each
// with its reason. `<!-- docs-test: output -->` before a plain ``` block
// makes it the output of the block before it ("..." stands for any text;
// a line "..." for any lines).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

// The documents whose examples must be true, in the order they run.
const char* const kDocuments[] = {"README.md", "docs/cli.md", "docs/python.md",
                                  "docs/inspector.md"};

// Commands that cannot run here, by their exact text (comment stripped).
const std::map<std::string, std::string>& Skipped() {
  static const auto* skipped = new std::map<std::string, std::string>{
      // Building and testing the project from inside its own tests.
      {"make run", "builds the project and runs the demo"},
      {"make test", "runs this very test suite"},
      // Installing into the system (tests/install/run.sh installs into a
      // temporary prefix and builds a consumer against it).
      {"sudo make install", "installs into /usr/local"},
      {"PREFIX=~/.local make install", "installs into the user's home"},
      {"export PATH=\"$HOME/.local/bin:$PATH\"", "changes the test's PATH"},
      // The Python package (tests/python/install_test.sh pip-installs it
      // into a fresh venv; building it here would compile the library).
      {"python3 -m venv .venv && .venv/bin/pip install --no-build-isolation .",
       "builds the Python package from the source tree"},
      // Third-party client, not installed in tests.
      {"claude mcp add ctxkit -- ctxkit mcp", "needs the Claude Code CLI"},
      {"claude mcp add --transport http ctxkit http://127.0.0.1:8765/mcp",
       "needs the Claude Code CLI"},
      // Long-running servers and daemons (tested in tests/mcp, tests/watch).
      {"ctxkit serve &", "a background server on a fixed port"},
      {"ctxkit watch add ~/src/project && ctxkit watch run",
       "watch run is a foreground daemon that runs until signalled"},
      // A PostgreSQL server of the reader's (the pg. suites test the
      // engine against one of their own).
      {"export CTXKIT_STORE_URL='postgresql://ctxkit@db.internal/ctxkit'",
       "names a server that does not exist here"},
      // The test provides its own temporary store through CTXKIT_HOME.
      {"export CTXKIT_HOME=/tmp/ctx", "would leave the temporary store"},
  };
  return *skipped;
}

// A fenced code block of a document that the test runs.
struct Block {
  std::string where;     // "README.md:224"
  std::string document;  // "README.md"
  std::string language;  // "sh" or "python"
  std::vector<std::string> lines;
  std::string skip;  // why it does not run ("" when it runs)
  // The block's expected output (the ``` block after it, marked
  // <!-- docs-test: output -->); empty when the text claims none.
  std::vector<std::string> expected;
  bool has_expected = false;
};

// One command from a document, with where it came from.
struct Example {
  std::string where;  // "README.md:190"
  std::string command;
};

// `line` without a trailing shell comment: a '#' outside quotes that
// starts a word.
std::string StripComment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      if (c == '\\' && quote == '"') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\') {
      ++i;
    } else if (c == '#' && (i == 0 || line[i - 1] == ' ')) {
      std::string out = line.substr(0, i);
      while (!out.empty() && out.back() == ' ') out.pop_back();
      return out;
    }
  }
  return line;
}

// The ```sh and ```python blocks of document `name`, in order. A line
// `<!-- docs-test: skip (REASON) -->` right before a fence skips that block;
// `<!-- docs-test: output -->` right before a plain ``` block makes it the
// output the block before it must print.
std::vector<Block> CodeBlocks(const std::string& name) {
  std::ifstream in(std::string(CTXKIT_SOURCE_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "cannot read " << name;
  std::vector<Block> out;
  std::string line;
  std::string marker;  // the docs-test comment of the last non-empty line
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.starts_with("```")) {
      if (line.starts_with("<!-- docs-test:")) {
        marker = line;
      } else if (!line.empty()) {
        marker.clear();
      }
      continue;
    }
    const std::string language = line.substr(3);
    Block block;
    block.where = name + ":" + std::to_string(number);
    block.document = name;
    block.language = language;
    while (std::getline(in, line) && !line.starts_with("```")) {
      block.lines.push_back(line);
    }
    number += static_cast<int>(block.lines.size()) + 1;
    if (marker == "<!-- docs-test: output -->") {
      EXPECT_TRUE(language.empty() && !out.empty() && !out.back().has_expected)
          << block.where << ": an output block follows no code block";
      if (!out.empty()) {
        out.back().expected = block.lines;
        out.back().has_expected = true;
      }
    } else if (language == "sh" || language == "python") {
      if (marker.starts_with("<!-- docs-test: skip (")) {
        block.skip = marker;
      } else {
        EXPECT_EQ(marker, "") << block.where << ": unknown marker";
      }
      out.push_back(std::move(block));
    }
    marker.clear();
  }
  return out;
}

// The commands of a ```sh block, continuation lines joined.
std::vector<Example> ShellCommands(const Block& block) {
  std::vector<Example> out;
  std::string pending;
  int offset = 0;
  int pending_line = 0;
  const std::string file = block.where.substr(0, block.where.find(':'));
  const int first = std::stoi(block.where.substr(block.where.find(':') + 1));
  for (const std::string& line : block.lines) {
    ++offset;
    std::string command = StripComment(line);
    if (pending.empty()) pending_line = first + offset;
    if (!command.empty() && command.back() == '\\') {
      command.pop_back();
      pending += command;
      continue;
    }
    pending += command;
    if (!pending.empty()) {
      out.push_back({file + ":" + std::to_string(pending_line), pending});
    }
    pending.clear();
  }
  return out;
}

// Whether `text` matches `pattern`, where each "..." in the pattern stands
// for any run of characters.
bool MatchLine(std::string_view pattern, std::string_view text) {
  size_t dots = pattern.find("...");
  if (dots == std::string_view::npos) return pattern == text;
  if (!text.starts_with(pattern.substr(0, dots))) return false;
  std::string_view rest = pattern.substr(dots + 3);
  for (size_t i = dots; i <= text.size(); ++i) {
    if (MatchLine(rest, text.substr(i))) return true;
  }
  return false;
}

// Whether the lines `text` match the lines `pattern`: a pattern line "..."
// stands for any number of lines, any other line matches one (MatchLine).
bool MatchLines(const std::vector<std::string>& pattern, size_t p,
                const std::vector<std::string>& text, size_t t) {
  if (p == pattern.size()) return t == text.size();
  if (pattern[p] == "...") {
    for (size_t i = t; i <= text.size(); ++i) {
      if (MatchLines(pattern, p + 1, text, i)) return true;
    }
    return false;
  }
  return t < text.size() && MatchLine(pattern[p], text[t]) &&
         MatchLines(pattern, p + 1, text, t + 1);
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// The files the examples read, in the directory they run in.
void CreateInputs(const fs::path& work, const fs::path& user_home) {
  std::string build_log;
  for (int i = 0; i < 200; ++i) {
    build_log += "[" + std::to_string(i) + "] cc -c src/module_" +
                 std::to_string(i) + ".c" +
                 (i % 50 == 7 ? "  error: 'ssl_ctx' undeclared\n" : "  ok\n");
  }
  WriteFile(work / "build.log", build_log);
  WriteFile(work / "big.log", build_log + build_log);
  WriteFile(work / "config.json", R"({"retries": 3, "hosts": ["a", "b"]})");
  WriteFile(work / "chat.json", R"({"messages": [
    {"role": "system", "content": "You review builds."},
    {"role": "user", "content": "Why did the build fail?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
      "type": "function", "function": {"name": "grep",
      "arguments": "{\"pattern\": \"error\"}"}}]},
    {"role": "tool", "tool_call_id": "c1",
     "content": "src/net/tls.c:88: error: 'ssl_ctx' undeclared"},
    {"role": "assistant", "content": "ssl_ctx is undeclared in tls.c."}]})");
  WriteFile(user_home / "src/project/main.c", "int main(void) { return 0; }\n");
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What the run printed between "docs-example-begin K" and
// "docs-example-end K", as lines.
std::vector<std::string> BlockOutput(const std::string& out, size_t k) {
  const std::string begin = "docs-example-begin " + std::to_string(k) + "\n";
  const std::string end = "docs-example-end " + std::to_string(k) + "\n";
  size_t from = out.find(begin);
  if (from == std::string::npos) return {"(block did not run)"};
  from += begin.size();
  size_t to = out.find(end, from);
  if (to == std::string::npos) to = out.size();
  std::vector<std::string> lines;
  std::istringstream in(out.substr(from, to - from));
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

// Every ```sh and ```python block of the documents runs, in order, against a
// temporary store, exactly as written: shell commands in one bash script (a
// variable one sets reaches the next), a document's Python blocks in one
// interpreter (a name one defines reaches the next, as in a notebook). A
// block followed by an output block must print what it shows.
TEST_F(CliTest, EveryDocumentedCommandRuns) {
  std::vector<Block> blocks;
  for (const char* doc : kDocuments) {
    std::vector<Block> found = CodeBlocks(doc);
    blocks.insert(blocks.end(), found.begin(), found.end());
  }

  const fs::path work = fs::path(tmp_.path()) / "work";
  const fs::path bin = fs::path(tmp_.path()) / "bin";
  fs::create_directories(work);
  fs::create_directories(bin);
  fs::create_symlink(CTXKIT_BINARY, bin / "ctxkit");
  CreateInputs(work, user_home_);

  // One bash script; each command reports its own failure and the script
  // goes on.
  std::string script =
      "set -o pipefail\ncd " + ShellQuote(work.string()) + " || exit 99\n";
  std::vector<Example> run;           // the shell commands that ran
  std::vector<const Block*> checked;  // the blocks whose output is checked
  std::set<std::string> skipped_seen;
  size_t commands = 0;
  size_t python_blocks = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    const Block& block = blocks[b];
    const std::string begin = "echo docs-example-begin " + std::to_string(b);
    const std::string end = "echo docs-example-end " + std::to_string(b);
    if (!block.skip.empty()) {
      // Skipped as the document says.
    } else if (block.language == "python") {
      ++python_blocks;
      // The document's Python blocks run together after its shell blocks
      // (below); each is a file the runner executes in one namespace.
      WriteFile(work / ("block_" + std::to_string(b) + ".py"),
                JoinLines(block.lines));
      if (block.has_expected) checked.push_back(&block);
    } else {
      script += begin + "\n";
      for (const Example& e : ShellCommands(block)) {
        ++commands;
        if (Skipped().count(e.command) > 0) {
          skipped_seen.insert(e.command);
          continue;
        }
        // pipefail catches a failing ctxkit before a pipe; 141 (SIGPIPE) is
        // what `ctxkit ... | head` gives when head stops reading.
        script += e.command + " || { c=$?; [ $c -eq 141 ] || echo " +
                  "\"docs-example-failed " + std::to_string(run.size()) +
                  " $c\" >&2; }\n";
        run.push_back(e);
      }
      script += end + "\n";
      if (block.has_expected) checked.push_back(&block);
    }
    // After a document's last block: its Python blocks, in one interpreter.
    if (b + 1 == blocks.size() || blocks[b + 1].document != block.document) {
      std::string program =
          "import sys, traceback\nnamespace = {'__name__': '__main__'}\n";
      bool any = false;
      for (size_t p = 0; p <= b; ++p) {
        if (blocks[p].document != block.document ||
            blocks[p].language != "python" || !blocks[p].skip.empty()) {
          continue;
        }
        any = true;
        const std::string k = std::to_string(p);
        program += "print('docs-example-begin " + k + "', flush=True)\n" +
                   "try:\n    exec(compile(open('block_" + k +
                   ".py').read(), '" + blocks[p].where +
                   "', 'exec'), namespace)\nexcept BaseException:\n" +
                   "    traceback.print_exc()\n" +
                   "    print('docs-example-python-failed " + k +
                   "', file=sys.stderr, flush=True)\n" +
                   "sys.stdout.flush()\nprint('docs-example-end " + k +
                   "', flush=True)\n";
      }
      if (any) {
        const std::string file = "document_" + std::to_string(b) + "_python.py";
        WriteFile(work / file, program);
#ifdef CTXKIT_PYTHON_DIR
        script += "PYTHONPATH=" + ShellQuote(CTXKIT_PYTHON_DIR) + " " +
                  CTXKIT_PYTHON + " " + file + "\n";
#endif
      }
    }
  }
  // Sanity floors: the extraction itself must find the documents' examples.
  ASSERT_GE(commands, 25u);
  ASSERT_GE(python_blocks, 3u);
  // A skip entry whose command left the docs is stale: drop it.
  for (const auto& [command, reason] : Skipped()) {
    EXPECT_EQ(skipped_seen.count(command), 1u)
        << "skip list names a command the docs no longer show: " << command;
  }

  RunOptions opts;
  opts.pass_home = false;
  const char* path = ::getenv("PATH");
  opts.env = {"PATH=" + bin.string() + ":" + (path ? path : "/usr/bin:/bin"),
              "CTXKIT_HOME=" + home_,
              std::string("CTXKIT_BINARY=") + CTXKIT_BINARY,
              "CTXKIT_TOOL_CONTEXT_DIR=" + (work / "tool-context").string(),
              "SFA_CONTEXT_STORE=" + (work / "notes").string(),
              "PYTHONDONTWRITEBYTECODE=1"};
  std::vector<std::string> argv = {"/bin/bash", "-c", script};
  Result<ProcessResult> r = RunProcess(argv, "", Env(opts.env));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0) << r->err;

  std::istringstream err(r->err);
  std::string line;
  int failures = 0;
  while (std::getline(err, line)) {
    size_t at = line.find("docs-example-failed ");
    size_t py = line.find("docs-example-python-failed ");
    if (py != std::string::npos) {
      size_t index = std::stoul(line.substr(py + 27));
      ASSERT_LT(index, blocks.size());
      ++failures;
      ADD_FAILURE() << blocks[index].where << ": the Python block failed"
                    << "\nstderr of the run:\n"
                    << r->err;
      continue;
    }
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(at + 20));
    size_t index = 0;
    int code = 0;
    fields >> index >> code;
    ASSERT_LT(index, run.size());
    ++failures;
    ADD_FAILURE() << run[index].where << ": `" << run[index].command
                  << "` exited " << code << "\nstderr of the run:\n"
                  << r->err;
  }
  EXPECT_EQ(failures, 0);

#ifdef CTXKIT_PYTHON_DIR
  // Every Python block ran to its end (an interpreter that died midway
  // prints no end marker).
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].language != "python" || !blocks[b].skip.empty()) continue;
    EXPECT_NE(r->out.find("docs-example-end " + std::to_string(b) + "\n"),
              std::string::npos)
        << blocks[b].where << ": the Python block did not finish\n"
        << r->err;
  }
#endif

  // What the text claims a block prints.
  for (const Block* block : checked) {
#ifndef CTXKIT_PYTHON_DIR
    if (block->language == "python") continue;
#endif
    const size_t k = static_cast<size_t>(block - blocks.data());
    std::vector<std::string> printed = BlockOutput(r->out, k);
    EXPECT_TRUE(MatchLines(block->expected, 0, printed, 0))
        << block->where << " prints:\n"
        << JoinLines(printed) << "the document shows:\n"
        << JoinLines(block->expected);
  }
}

}  // namespace
}  // namespace ctxkit::cli::testing

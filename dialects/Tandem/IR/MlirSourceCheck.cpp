//===- MlirSourceCheck.cpp - .mlir text MLIR's parser would crash on ------===//

#include "dialects/Tandem/IR/MlirSourceCheck.h"

#include <cctype>

using namespace mlir::tandem;

namespace {

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

} // namespace

std::optional<ParserCrashSpot>
mlir::tandem::findParserCrash(llvm::StringRef text) {
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      size_t end = text.find('\n', i);
      i = end == llvm::StringRef::npos ? n : end + 1;
      continue;
    }
    if (c == '"') { // a string literal, with backslash escapes
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    if (text.substr(i).starts_with("array") &&
        (i == 0 || !isIdentifierChar(text[i - 1]))) {
      size_t start = i, j = i + 5;
      while (j < n && isSpace(text[j]))
        ++j;
      if (j < n && text[j] == '<') {
        ++j;
        while (j < n && isSpace(text[j]))
          ++j;
        if (text.substr(j).starts_with("index") &&
            (j + 5 >= n || !isIdentifierChar(text[j + 5])))
          return ParserCrashSpot{
              start, "dense arrays of 'index' are not supported: use an "
                     "integer element type, e.g. array<i64: ...>"};
      }
      i = j;
      continue;
    }
    ++i;
  }
  return std::nullopt;
}

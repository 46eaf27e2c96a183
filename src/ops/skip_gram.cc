// SKIP_GRAM: the skip-grams of the first string of the input: its words (split at whitespace)
// combined into n-grams of ngram_size words (or 1..ngram_size with include_all_ngrams) where
// consecutive words are at most max_skip_size words apart, joined by single spaces. The output
// is a 1-D string tensor; the order (and the word splitting, which keeps a leading space on the
// last word when the text has one) is TFLite's.
#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

struct SkipGramParams {
  int ngram_size = 0;
  int max_skip_size = 0;
  bool include_all_ngrams = false;
};

SkipGramParams ReadParams(const OpContext& ctx) {
  SkipGramParams p;
  if (const auto* o = Options<tflite::SkipGramOptions>(ctx)) {
    p.ngram_size = o->ngram_size();
    p.max_skip_size = o->max_skip_size();
    p.include_all_ngrams = o->include_all_ngrams();
  }
  return p;
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "input", {TensorType::kString}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kString}));
  const SkipGramParams p = ReadParams(ctx);
  if (p.ngram_size < 0 || p.ngram_size > 1024) return ctx.Error("ngram_size ", p.ngram_size, " is out of range");
  return Status::Ok();
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t start = 0;
  for (size_t i = 1; i < text.size(); ++i) {
    if (!IsSpace(text[i])) continue;
    if (i > start && !IsSpace(text[start])) words.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  if (text.size() > start) words.push_back(text.substr(start));
  return words;
}

// Walks the word choices depth first: stack[d] is the word at position d of the current gram.
// A position is advanced while the next word stays within max_skip_size of the previous one.
bool CanDescend(const SkipGramParams& p, const std::vector<int>& stack, int depth, int num_words) {
  if (depth >= p.ngram_size || stack[depth] + 1 >= num_words) return false;
  return depth == 0 || stack[depth] - stack[depth - 1] <= p.max_skip_size;
}

bool Emits(const SkipGramParams& p, int size) {
  if (size <= 0) return false;
  return p.include_all_ngrams ? size <= p.ngram_size : size == p.ngram_size;
}

Status Eval(OpContext& ctx) {
  const SkipGramParams p = ReadParams(ctx);
  std::vector<std::string_view> input;
  ER_RETURN_IF_ERROR(ReadStringViews(ctx, ctx.input(0), "input", &input));
  if (input.empty()) return ctx.Error("input ", Describe(ctx.input(0)), " holds no string");
  const std::vector<std::string_view> words = SplitWords(input[0]);
  StringTensorWriter writer;
  const int num_words = static_cast<int>(words.size());
  if (num_words >= p.ngram_size) {
    std::vector<int> stack(p.ngram_size, 0);
    int depth = 1;
    std::vector<std::string_view> gram;
    while (depth >= 0) {
      if (CanDescend(p, stack, depth, num_words)) {
        ++stack[depth];
        ++depth;
        if (depth < p.ngram_size) stack[depth] = stack[depth - 1];
      } else {
        if (Emits(p, depth)) {
          gram.clear();
          for (int i = 0; i < depth; ++i) gram.push_back(words[stack[i]]);
          writer.AddJoined(gram, ' ');
          if (writer.bytes() > ctx.interpreter().options().max_tensor_bytes) {
            return ctx.Error("the skip-grams of ", num_words, " words exceed the tensor size limit");
          }
        }
        --depth;
      }
    }
  }
  return writer.WriteTo(ctx, ctx.output(0), {static_cast<int32_t>(writer.count())});
}

}  // namespace

OpRegistration RegisterSkipGram() {
  return MakeBuiltin(tflite::BuiltinOperator_SKIP_GRAM, 1, "string", Prepare, Eval);
}

}  // namespace edgerun::ops

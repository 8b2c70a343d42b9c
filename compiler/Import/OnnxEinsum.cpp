//===- OnnxEinsum.cpp - ONNX Einsum -> transposes, reshapes, matmuls ------===//
//
// An Einsum equation is decomposed into ops codegen already makes fast:
// repeated labels within one operand take the diagonal (a strided slice of
// the flattened pair of dims), labels no one else needs are summed out
// (tandem.reduce_sum), and operands are combined left to right, each pair
// as one batched matmul: batch labels (in both operands and needed later)
// x left-only labels x contracted labels, times batch x contracted x
// right-only. A final transpose puts the labels in the output's order.
// Ellipses broadcast like NumPy.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "dialects/Tandem/IR/ShapeInference.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

/// A value with one label per dim.
struct Labeled {
  Value value;
  std::string labels;
};

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Splits "ab,bc->ac" into input terms and the output term (std::nullopt
/// when implicit), dropping spaces.
bool parseEquation(StringRef equation, SmallVector<std::string> &inputs,
                   std::optional<std::string> &output) {
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq += c;
  StringRef lhs = eq, rhs;
  size_t arrow = eq.find("->");
  if (arrow != std::string::npos) {
    lhs = StringRef(eq).take_front(arrow);
    rhs = StringRef(eq).drop_front(arrow + 2);
    output = rhs.str();
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  for (StringRef t : terms)
    inputs.push_back(t.str());
  auto valid = [](StringRef t) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.substr(i).starts_with("...")) {
        i += 2;
        continue;
      }
      if (!llvm::isAlpha(t[i]))
        return false;
    }
    return t.count("...") <= 1 && t.count('.') == 3 * t.count("...");
  };
  return llvm::all_of(inputs, valid) && (!output || valid(*output));
}

/// Labels for ellipsis dims: characters no equation can contain, '0' + k
/// for the k-th of `count` broadcast dims (right-aligned across operands).
std::string ellipsisLabels(int64_t count, int64_t total) {
  std::string s;
  for (int64_t k = total - count; k < total; ++k)
    s += static_cast<char>('0' + k);
  return s;
}

/// Sums `x` over the labels for which `keep` is false.
Labeled sumOut(GraphImporter &im, Labeled x, function_ref<bool(char)> keep) {
  SmallVector<int64_t> axes;
  std::string kept;
  for (auto [i, l] : llvm::enumerate(x.labels)) {
    if (keep(l))
      kept += l;
    else
      axes.push_back(i);
  }
  if (axes.empty())
    return x;
  return {im.create<ReduceSumOp>(x.value, axes, /*keepdims=*/false), kept};
}

/// Takes the diagonal for every label repeated within `x`.
FailureOr<Labeled> diagonals(GraphImporter &im, Labeled x) {
  for (size_t i = 0; i < x.labels.size(); ++i) {
    size_t j = x.labels.find(x.labels[i], i + 1);
    if (j == std::string::npos)
      continue;
    // Move the pair last, flatten it and keep every (n + 1)-th element.
    RankedTensorType t = typeOf(x.value);
    int64_t n = t.getDimSize(i);
    if (t.getDimSize(j) != n)
      return im.error() << "label '" << x.labels[i] << "' repeats with sizes "
                        << n << " and " << t.getDimSize(j),
             failure();
    SmallVector<int64_t> perm;
    std::string labels;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != static_cast<int64_t>(i) && d != static_cast<int64_t>(j))
        perm.push_back(d), labels += x.labels[d];
    perm.append({static_cast<int64_t>(i), static_cast<int64_t>(j)});
    Value v = x.value;
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, t.getRank())))
      v = im.create<TransposeOp>(v, perm);
    SmallVector<int64_t> shape;
    for (int64_t d : ArrayRef<int64_t>(perm).drop_back(2))
      shape.push_back(t.getDimSize(d));
    SmallVector<int64_t> flat = shape;
    flat.push_back(n * n);
    v = im.create<ReshapeOp>(v, flat);
    SmallVector<int64_t> starts(flat.size(), 0), limits(flat),
        steps(flat.size(), 1);
    steps.back() = n + 1;
    v = im.create<SliceOp>(v, starts, limits, steps);
    x = {v, labels + x.labels[i]};
    i = static_cast<size_t>(-1); // labels moved: scan again
  }
  return x;
}

/// Broadcasts `x`'s dims of size 1 to `sizes` of their label.
Value broadcastLabels(GraphImporter &im, const Labeled &x,
                      const llvm::DenseMap<char, int64_t> &sizes) {
  RankedTensorType t = typeOf(x.value);
  SmallVector<int64_t> shape;
  bool changed = false;
  for (auto [d, l] : llvm::enumerate(x.labels)) {
    int64_t s = sizes.lookup(l);
    changed |= s != t.getDimSize(d);
    shape.push_back(s);
  }
  return changed ? Value(im.create<BroadcastToOp>(x.value, shape)) : x.value;
}

/// Transposes `x` so its labels read `order`.
Value arrange(GraphImporter &im, const Labeled &x, StringRef order) {
  SmallVector<int64_t> perm;
  for (char l : order)
    perm.push_back(static_cast<int64_t>(x.labels.find(l)));
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  return identity ? x.value : Value(im.create<TransposeOp>(x.value, perm));
}

LogicalResult convertEinsum(GraphImporter &im) {
  std::string equation = im.attrString("equation", "");
  SmallVector<std::string> terms;
  std::optional<std::string> output;
  if (!parseEquation(equation, terms, output) ||
      terms.size() != im.numInputs())
    return im.error() << "malformed equation '" << equation << "' for "
                      << im.numInputs() << " inputs",
           failure();

  // Expand ellipses into labels.
  SmallVector<Labeled> operands;
  int64_t ellipsis = 0;
  for (auto [i, term] : llvm::enumerate(terms)) {
    FailureOr<Value> v = im.input(i);
    if (failed(v))
      return failure();
    int64_t letters = static_cast<int64_t>(term.size()) -
                      (term.find("...") != std::string::npos ? 3 : 0);
    int64_t rank = typeOf(*v).getRank();
    bool hasEllipsis = term.find("...") != std::string::npos;
    if (rank < letters || (!hasEllipsis && rank != letters))
      return im.error() << "term '" << term << "' does not fit input #" << i
                        << " of rank " << rank,
             failure();
    if (hasEllipsis)
      ellipsis = std::max(ellipsis, rank - letters);
    operands.push_back({*v, term});
  }
  for (Labeled &op : operands) {
    size_t pos = op.labels.find("...");
    if (pos == std::string::npos)
      continue;
    int64_t count =
        typeOf(op.value).getRank() - static_cast<int64_t>(op.labels.size() - 3);
    op.labels.replace(pos, 3, ellipsisLabels(count, ellipsis));
  }
  std::string out;
  if (output) {
    out = *output;
    size_t pos = out.find("...");
    if (pos != std::string::npos)
      out.replace(pos, 3, ellipsisLabels(ellipsis, ellipsis));
  } else {
    out = ellipsisLabels(ellipsis, ellipsis);
    std::string letters;
    for (const Labeled &op : operands)
      letters += op.labels;
    llvm::sort(letters);
    for (char l : letters)
      if (llvm::isAlpha(l) && llvm::count(letters, l) == 1)
        out += l;
  }
  // Every output label must come from an input, once.
  for (char l : out)
    if (llvm::count(out, l) != 1 ||
        llvm::none_of(operands, [&](const Labeled &op) {
          return op.labels.find(l) != std::string::npos;
        }))
      return im.error() << "output label '" << l
                        << "' is repeated or in no input",
             failure();

  // Label sizes, broadcasting 1 against n.
  llvm::DenseMap<char, int64_t> sizes;
  for (const Labeled &op : operands)
    for (auto [d, l] : llvm::enumerate(op.labels)) {
      int64_t s = typeOf(op.value).getDimSize(d);
      auto [it, inserted] = sizes.try_emplace(l, s);
      if (inserted || it->second == s || s == 1)
        continue;
      if (it->second != 1)
        return im.error() << "label '" << l << "' has sizes " << it->second
                          << " and " << s,
               failure();
      it->second = s;
    }

  // Diagonals, then labels only one operand has and the output lacks.
  for (size_t i = 0; i < operands.size(); ++i) {
    FailureOr<Labeled> d = diagonals(im, operands[i]);
    if (failed(d))
      return failure();
    operands[i] = *d;
  }
  auto neededLater = [&](size_t after, char l) {
    if (out.find(l) != std::string::npos)
      return true;
    for (size_t j = after + 1; j < operands.size(); ++j)
      if (operands[j].labels.find(l) != std::string::npos)
        return true;
    return false;
  };
  Labeled acc =
      sumOut(im, operands[0], [&](char l) { return neededLater(0, l); });
  for (size_t i = 1; i < operands.size(); ++i) {
    Labeled rhs = sumOut(im, operands[i], [&](char l) {
      return neededLater(i, l) || acc.labels.find(l) != std::string::npos;
    });
    acc = sumOut(im, acc, [&](char l) {
      return neededLater(i, l) || rhs.labels.find(l) != std::string::npos;
    });
    std::string batch, left, contract, right;
    for (char l : acc.labels) {
      bool inRhs = rhs.labels.find(l) != std::string::npos;
      if (!inRhs)
        left += l;
      else if (neededLater(i, l))
        batch += l;
      else
        contract += l;
    }
    for (char l : rhs.labels)
      if (acc.labels.find(l) == std::string::npos)
        right += l;
    acc.value = broadcastLabels(im, acc, sizes);
    rhs.value = broadcastLabels(im, rhs, sizes);
    auto product = [&](StringRef labels) {
      int64_t p = 1;
      for (char l : labels)
        p *= sizes.lookup(l);
      return p;
    };
    int64_t b = product(batch), m = product(left), k = product(contract),
            n = product(right);
    Value a = im.create<ReshapeOp>(arrange(im, acc, batch + left + contract),
                                   ArrayRef<int64_t>{b, m, k});
    Value c = im.create<ReshapeOp>(arrange(im, rhs, batch + contract + right),
                                   ArrayRef<int64_t>{b, k, n});
    Value prod = im.create<MatmulOp>(a, c);
    SmallVector<int64_t> shape;
    std::string labels = batch + left + right;
    for (char l : labels)
      shape.push_back(sizes.lookup(l));
    acc = {im.create<ReshapeOp>(prod, shape), labels};
  }
  acc =
      sumOut(im, acc, [&](char l) { return out.find(l) != std::string::npos; });
  acc.value = broadcastLabels(im, acc, sizes);
  im.setOutput(0, arrange(im, acc, out));
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerEinsumConverters(ConverterMap &map) {
  map["Einsum"] = convertEinsum;
}

//===- OnnxControlFlow.cpp - If and Loop with decisions known at compile time
//===//
//
// Exports produce If nodes whose condition folds (a shape test) and Loops
// whose trip count and condition are known. Tandem compiles static graphs,
// so the chosen branch is imported inline, and a Loop is unrolled: its body
// imported once per iteration, the iteration number and condition known,
// the carried values threaded through, scan outputs stacked. A condition
// that depends on data is an error that says so.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

/// Loops unroll at most this many iterations.
constexpr int64_t kMaxUnrolledIterations = 4096;

const onnx::GraphProto *graphAttr(GraphImporter &im, StringRef name) {
  const onnx::AttributeProto *a = im.attr(name);
  return a && a->has_g() ? &a->g() : nullptr;
}

/// The value of a known boolean or integer scalar `name`, if known.
std::optional<bool> knownCondition(GraphImporter &im, StringRef name) {
  std::optional<GraphImporter::Tensor> t = im.lookupTensor(name);
  if (!t || !t->known || t->known->values.size() != 1)
    return std::nullopt;
  return t->known->values[0] != 0;
}

LogicalResult convertIf(GraphImporter &im) {
  if (!im.hasInput(0))
    return im.error() << "input #0 (cond) is missing", failure();
  // A condition from run-time data cannot be compiled statically; the
  // error names it (and suggests --bind-input for a graph input).
  FailureOr<std::vector<int64_t>> condValues = im.constantInts(0, "cond");
  if (failed(condValues))
    return failure();
  if (condValues->size() != 1)
    return im.error() << "cond must be a scalar", failure();
  std::optional<bool> cond = (*condValues)[0] != 0;
  StringRef which = *cond ? "then_branch" : "else_branch";
  const onnx::GraphProto *branch = graphAttr(im, which);
  if (!branch)
    return im.error() << "has no " << which, failure();
  if (branch->output_size() != im.node().output_size())
    return im.error() << which << " has " << branch->output_size()
                      << " outputs, the node " << im.node().output_size(),
           failure();
  std::string prefix =
      (im.node().name().empty() ? std::string("If") : im.node().name()) + "/" +
      which.str() + "/";
  if (failed(im.importSubgraph(*branch, prefix)))
    return failure();
  for (int i = 0; i < branch->output_size(); ++i) {
    std::optional<GraphImporter::Tensor> t =
        im.lookupTensor(branch->output(i).name());
    if (!t)
      return im.error() << which << " output '" << branch->output(i).name()
                        << "' is not produced",
             failure();
    im.setOutputTensor(i, *t);
  }
  return success();
}

LogicalResult convertLoop(GraphImporter &im) {
  const onnx::GraphProto *body = graphAttr(im, "body");
  if (!body)
    return im.error() << "has no body", failure();
  int carried = im.numInputs() - 2;
  if (carried < 0 || body->input_size() != carried + 2 ||
      body->output_size() < carried + 1 ||
      im.node().output_size() != body->output_size() - 1)
    return im.error() << "the body's inputs and outputs do not match the "
                         "node's",
           failure();
  int scans = body->output_size() - 1 - carried;
  std::optional<int64_t> tripCount;
  if (im.hasInput(0)) {
    FailureOr<std::vector<int64_t>> m = im.constantInts(0, "M");
    if (failed(m))
      return failure();
    if (m->size() != 1)
      return im.error() << "M must be a scalar", failure();
    tripCount = (*m)[0];
  }
  bool cond = true;
  if (im.hasInput(1)) {
    FailureOr<std::vector<int64_t>> c = im.constantInts(1, "cond");
    if (failed(c))
      return failure();
    if (c->size() != 1)
      return im.error() << "cond must be a scalar", failure();
    cond = (*c)[0] != 0;
  }
  if (!tripCount && !im.hasInput(1))
    return im.error() << "has neither a trip count nor a condition (an "
                         "infinite loop)",
           failure();
  SmallVector<GraphImporter::Tensor> state;
  for (int k = 0; k < carried; ++k) {
    std::optional<GraphImporter::Tensor> t =
        im.lookupTensor(im.node().input(2 + k));
    if (!t)
      return im.error() << "loop-carried input #" << 2 + k << " is missing",
             failure();
    state.push_back(*t);
  }
  SmallVector<SmallVector<Value>> scanned(scans);
  std::string base =
      im.node().name().empty() ? std::string("Loop") : im.node().name();
  Type i64 = im.builder().getI64Type(), i1 = im.builder().getI1Type();
  int64_t i = 0;
  for (; cond && (!tripCount || i < *tripCount); ++i) {
    if (i >= kMaxUnrolledIterations)
      return im.error() << "would unroll more than " << kMaxUnrolledIterations
                        << " iterations",
             failure();
    im.defineTensor(body->input(0).name(), {Value(), KnownInts{{}, {i}, i64}});
    im.defineTensor(body->input(1).name(), {Value(), KnownInts{{}, {1}, i1}});
    for (int k = 0; k < carried; ++k)
      im.defineTensor(body->input(2 + k).name(), state[k]);
    if (failed(
            im.importSubgraph(*body, base + "/iter" + std::to_string(i) + "/")))
      return failure();
    auto out = [&](int j) { return im.lookupTensor(body->output(j).name()); };
    for (int j = 0; j < body->output_size(); ++j)
      if (!out(j))
        return im.error() << "body output '" << body->output(j).name()
                          << "' is not produced",
               failure();
    std::optional<bool> next = knownCondition(im, body->output(0).name());
    if (!next)
      return im.error() << "the body's condition output '"
                        << body->output(0).name()
                        << "' depends on run-time data; Tandem needs it "
                           "known at compile time",
             failure();
    cond = *next;
    for (int k = 0; k < carried; ++k)
      state[k] = *out(1 + k);
    for (int k = 0; k < scans; ++k) {
      Value v = im.materializeTensor(*out(1 + carried + k));
      SmallVector<int64_t> shape{1};
      auto t = cast<RankedTensorType>(v.getType());
      shape.append(t.getShape().begin(), t.getShape().end());
      scanned[k].push_back(im.create<ReshapeOp>(v, shape));
    }
  }
  for (int k = 0; k < carried; ++k)
    im.setOutputTensor(k, state[k]);
  for (int k = 0; k < scans; ++k) {
    if (scanned[k].empty())
      return im.error() << "runs no iteration, so scan output #" << k
                        << " has no known shape",
             failure();
    im.setOutput(carried + k, scanned[k].size() == 1
                                  ? scanned[k][0]
                                  : Value(im.create<ConcatOp>(scanned[k], 0)));
  }
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerControlFlowConverters(
    ConverterMap &map) {
  map["If"] = convertIf;
  map["Loop"] = convertLoop;
}

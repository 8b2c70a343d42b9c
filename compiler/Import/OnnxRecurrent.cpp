//===- OnnxRecurrent.cpp - ONNX LSTM, GRU and RNN, unrolled ---------------===//
//
// With static shapes the sequence length is known, so a recurrent layer is
// unrolled: the input projection of every time step is one matmul up front
// (X * W^T + biases for all steps), and each step adds H * R^T and applies
// the gates with elementwise tandem ops, which fusion merges per step. Both
// directions, initial states, peepholes, clip, input_forget, GRU's
// linear_before_reset, the activation lists and both layouts follow the
// ONNX spec. Variable sequence lengths (sequence_lens below the sequence
// length) are an error.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

namespace {

enum class Cell { LSTM, GRU, RNN };

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// An activation of the `activations` attribute with its alpha and beta.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

Value slice(GraphImporter &im, Value v, int64_t axis, int64_t start,
            int64_t size) {
  RankedTensorType t = typeOf(v);
  SmallVector<int64_t> starts(t.getRank(), 0), limits(t.getShape()),
      steps(t.getRank(), 1);
  starts[axis] = start;
  limits[axis] = start + size;
  return im.create<SliceOp>(v, starts, limits, steps);
}

Value apply(GraphImporter &im, const Activation &a, Value x) {
  Type elem = typeOf(x).getElementType();
  if (a.name == "Sigmoid")
    return im.create<SigmoidOp>(x);
  if (a.name == "Tanh")
    return im.create<TanhOp>(x);
  if (a.name == "Relu")
    return im.create<ReluOp>(x);
  if (a.name == "HardSigmoid") {
    Value y =
        im.create<AddOp>(im.create<MulOp>(x, im.scalarConstant(elem, a.alpha)),
                         im.scalarConstant(elem, a.beta));
    OpBuilder &b = im.builder();
    return im.create<ClipOp>(y, b.getF32FloatAttr(0.0f),
                             b.getF32FloatAttr(1.0f));
  }
  if (a.name == "LeakyRelu") {
    Value neg =
        im.create<CmpOp>(CmpPredicate::LT, x, im.scalarConstant(elem, 0.0));
    return im.create<WhereOp>(
        neg, im.create<MulOp>(x, im.scalarConstant(elem, a.alpha)), x);
  }
  if (a.name == "ScaledTanh")
    return im.create<MulOp>(
        im.create<TanhOp>(im.create<MulOp>(x, im.scalarConstant(elem, a.beta))),
        im.scalarConstant(elem, a.alpha));
  // Affine
  return im.create<AddOp>(im.create<MulOp>(x, im.scalarConstant(elem, a.alpha)),
                          im.scalarConstant(elem, a.beta));
}

/// The activations for each direction: the attribute's (with its alphas and
/// betas) or the cell's defaults.
FailureOr<SmallVector<Activation>> activations(GraphImporter &im, Cell cell,
                                               int64_t directions) {
  SmallVector<std::string> defaults;
  if (cell == Cell::LSTM)
    defaults = {"Sigmoid", "Tanh", "Tanh"};
  else if (cell == Cell::GRU)
    defaults = {"Sigmoid", "Tanh"};
  else
    defaults = {"Tanh"};
  SmallVector<Activation> result;
  const onnx::AttributeProto *names = im.attr("activations");
  if (!names) {
    for (int64_t d = 0; d < directions; ++d)
      for (const std::string &n : defaults)
        result.push_back({n, 0, 0});
    return result;
  }
  size_t expected = defaults.size() * directions;
  if (static_cast<size_t>(names->strings_size()) != expected)
    return im.error() << "activations lists " << names->strings_size()
                      << " functions, expected " << expected,
           failure();
  const onnx::AttributeProto *alphas = im.attr("activation_alpha");
  const onnx::AttributeProto *betas = im.attr("activation_beta");
  // Alphas and betas are listed for the activations that take them.
  int alphaAt = 0, betaAt = 0;
  for (int i = 0; i < names->strings_size(); ++i) {
    Activation a{names->strings(i), 0, 0};
    static const char *known[] = {"Sigmoid",     "Tanh",      "Relu",
                                  "HardSigmoid", "LeakyRelu", "ScaledTanh",
                                  "Affine"};
    if (!llvm::is_contained(known, StringRef(a.name)))
      return im.error() << "unsupported activation '" << a.name << "'",
             failure();
    bool takesAlpha = a.name == "HardSigmoid" || a.name == "LeakyRelu" ||
                      a.name == "ScaledTanh" || a.name == "Affine";
    bool takesBeta =
        a.name == "HardSigmoid" || a.name == "ScaledTanh" || a.name == "Affine";
    double defaultAlpha = a.name == "HardSigmoid" ? 0.2
                          : a.name == "LeakyRelu" ? 0.01
                                                  : 1.0;
    double defaultBeta = a.name == "HardSigmoid" ? 0.5 : 0.0;
    a.alpha = takesAlpha && alphas && alphaAt < alphas->floats_size()
                  ? alphas->floats(alphaAt++)
                  : defaultAlpha;
    a.beta = takesBeta && betas && betaAt < betas->floats_size()
                 ? betas->floats(betaAt++)
                 : defaultBeta;
    result.push_back(a);
  }
  return result;
}

LogicalResult convertRecurrent(GraphImporter &im, Cell cell) {
  FailureOr<Value> x = im.input(0), w = im.input(1), r = im.input(2);
  FailureOr<Value> b = im.optionalInput(3), h0 = im.optionalInput(5);
  if (failed(x) || failed(w) || failed(r) || failed(b) || failed(h0))
    return failure();
  FailureOr<Value> c0 = Value(), p = Value();
  if (cell == Cell::LSTM) {
    c0 = im.optionalInput(6);
    p = im.optionalInput(7);
    if (failed(c0) || failed(p))
      return failure();
  }
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  int64_t layout = im.attrInt("layout", 0);
  std::string direction = im.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return im.error() << "unknown direction '" << direction << "'", failure();
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  RankedTensorType xt = typeOf(*x), wt = typeOf(*w);
  Type elem = xt.getElementType();
  if (!isa<FloatType>(elem))
    return im.error() << "expects a float input, got " << xt, failure();
  if (xt.getRank() != 3 || wt.getRank() != 3)
    return im.error() << "expects a 3-D input and weight, got " << xt << " and "
                      << wt,
           failure();
  // Work in [T, B, I]; layout 1 is [B, T, I].
  Value seq =
      layout ? Value(im.create<TransposeOp>(*x, ArrayRef<int64_t>{1, 0, 2}))
             : *x;
  int64_t steps = typeOf(seq).getDimSize(0), batch = typeOf(seq).getDimSize(1),
          inSize = typeOf(seq).getDimSize(2);
  int64_t hidden = im.attrInt("hidden_size", wt.getDimSize(1) / gates);
  if (wt.getDimSize(0) != dirs || wt.getDimSize(1) != gates * hidden ||
      wt.getDimSize(2) != inSize)
    return im.error() << "W " << wt << " does not match " << dirs
                      << " direction(s), " << gates << " gate(s) of hidden "
                      << "size " << hidden << " and input size " << inSize,
           failure();
  if (im.hasInput(4)) {
    FailureOr<std::vector<int64_t>> lens = im.constantInts(4, "sequence_lens");
    if (failed(lens))
      return failure();
    if (llvm::any_of(*lens, [&](int64_t l) { return l != steps; }))
      return im.error() << "sequence_lens below the sequence length (" << steps
                        << ") are not supported",
             failure();
  }
  FailureOr<SmallVector<Activation>> acts = activations(im, cell, dirs);
  if (failed(acts))
    return failure();
  float clip = im.attrFloat("clip", 0.0f);
  bool inputForget = im.attrInt("input_forget", 0) != 0;
  bool linearBeforeReset = im.attrInt("linear_before_reset", 0) != 0;
  auto clipped = [&](Value v) -> Value {
    if (clip <= 0)
      return v;
    OpBuilder &bb = im.builder();
    return im.create<ClipOp>(v, bb.getF32FloatAttr(-clip),
                             bb.getF32FloatAttr(clip));
  };
  int64_t gh = gates * hidden;
  SmallVector<int64_t> stateShape{batch, hidden};
  Value zeros =
      im.create<BroadcastToOp>(im.scalarConstant(elem, 0.0), stateShape);

  SmallVector<Value> ys, lastH, lastC;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    auto perDir = [&](Value v, SmallVector<int64_t> shape) {
      return im.create<ReshapeOp>(slice(im, v, 0, d, 1), shape);
    };
    Value wd = im.create<TransposeOp>(perDir(*w, {gh, inSize}),
                                      ArrayRef<int64_t>{1, 0});
    Value rd = im.create<TransposeOp>(perDir(*r, {gh, hidden}),
                                      ArrayRef<int64_t>{1, 0});
    // All steps' input projections at once: [T * B, I] x [I, G * H].
    Value proj = im.create<MatmulOp>(
        im.create<ReshapeOp>(seq, ArrayRef<int64_t>{steps * batch, inSize}),
        wd);
    Value rbh; // GRU's hidden-gate recurrence bias, kept apart
    if (*b) {
      Value bd = perDir(*b, {2 * gh});
      Value wb = slice(im, bd, 0, 0, gh), rb = slice(im, bd, 0, gh, gh);
      if (cell == Cell::GRU) {
        // Rbh multiplies with r (linear_before_reset) or sits inside.
        rbh = slice(im, rb, 0, 2 * hidden, hidden);
        Value rzr = slice(im, rb, 0, 0, 2 * hidden);
        Value pad = im.create<BroadcastToOp>(im.scalarConstant(elem, 0.0),
                                             ArrayRef<int64_t>{hidden});
        rb = im.create<ConcatOp>(ValueRange{rzr, pad}, 0);
      }
      proj = im.create<AddOp>(proj, im.create<AddOp>(wb, rb));
    }
    proj = im.create<ReshapeOp>(proj, ArrayRef<int64_t>{steps, batch, gh});
    Value h = *h0 ? perDir(*h0, stateShape) : zeros;
    Value c = *c0 ? perDir(*c0, stateShape) : zeros;
    Value pi, po, pf;
    if (*p) {
      Value pd = perDir(*p, {3 * hidden});
      pi = slice(im, pd, 0, 0, hidden);
      po = slice(im, pd, 0, hidden, hidden);
      pf = slice(im, pd, 0, 2 * hidden, hidden);
    }
    const Activation *f = &(*acts)[d * (gates == 4 ? 3 : gates == 3 ? 2 : 1)];
    SmallVector<Value> outputs(steps);
    for (int64_t s = 0; s < steps; ++s) {
      int64_t t = reverse ? steps - 1 - s : s;
      Value xp = im.create<ReshapeOp>(slice(im, proj, 0, t, 1),
                                      ArrayRef<int64_t>{batch, gh});
      auto gate = [&](Value v, int64_t k) {
        return slice(im, v, 1, k * hidden, hidden);
      };
      if (cell == Cell::LSTM) {
        Value g = im.create<AddOp>(xp, im.create<MatmulOp>(h, rd));
        Value gi = gate(g, 0), go = gate(g, 1), gf = gate(g, 2),
              gc = gate(g, 3);
        if (pi) {
          gi = im.create<AddOp>(gi, im.create<MulOp>(pi, c));
          gf = im.create<AddOp>(gf, im.create<MulOp>(pf, c));
        }
        Value i = apply(im, f[0], clipped(gi));
        Value fg =
            inputForget
                ? Value(im.create<SubOp>(im.scalarConstant(elem, 1.0), i))
                : apply(im, f[0], clipped(gf));
        Value cand = apply(im, f[1], clipped(gc));
        c = im.create<AddOp>(im.create<MulOp>(fg, c),
                             im.create<MulOp>(i, cand));
        if (po)
          go = im.create<AddOp>(go, im.create<MulOp>(po, c));
        Value o = apply(im, f[0], clipped(go));
        h = im.create<MulOp>(o, apply(im, f[2], c));
      } else if (cell == Cell::GRU) {
        Value rzh = slice(im, rd, 1, 0, 2 * hidden);
        Value rh = slice(im, rd, 1, 2 * hidden, hidden);
        Value g = im.create<AddOp>(slice(im, xp, 1, 0, 2 * hidden),
                                   im.create<MatmulOp>(h, rzh));
        Value z = apply(im, f[0], clipped(gate(g, 0)));
        Value rg = apply(im, f[0], clipped(gate(g, 1)));
        Value xh = gate(xp, 2), hh;
        if (linearBeforeReset) {
          Value lin = im.create<MatmulOp>(h, rh);
          if (rbh)
            lin = im.create<AddOp>(lin, rbh);
          hh = im.create<AddOp>(xh, im.create<MulOp>(rg, lin));
        } else {
          Value lin = im.create<MatmulOp>(im.create<MulOp>(rg, h), rh);
          if (rbh)
            lin = im.create<AddOp>(lin, rbh);
          hh = im.create<AddOp>(xh, lin);
        }
        Value cand = apply(im, f[1], clipped(hh));
        Value one = im.scalarConstant(elem, 1.0);
        h = im.create<AddOp>(im.create<MulOp>(im.create<SubOp>(one, z), cand),
                             im.create<MulOp>(z, h));
      } else {
        Value g = im.create<AddOp>(xp, im.create<MatmulOp>(h, rd));
        h = apply(im, f[0], clipped(g));
      }
      if (!h || (cell == Cell::LSTM && !c))
        return failure();
      outputs[t] =
          im.create<ReshapeOp>(h, ArrayRef<int64_t>{1, 1, batch, hidden});
    }
    ys.push_back(steps == 1 ? outputs[0]
                            : Value(im.create<ConcatOp>(outputs, 0)));
    lastH.push_back(
        im.create<ReshapeOp>(h, ArrayRef<int64_t>{1, batch, hidden}));
    lastC.push_back(
        im.create<ReshapeOp>(c, ArrayRef<int64_t>{1, batch, hidden}));
  }
  auto join = [&](SmallVector<Value> &parts, int64_t axis) {
    return parts.size() == 1 ? parts[0]
                             : Value(im.create<ConcatOp>(parts, axis));
  };
  Value y = join(ys, 1), yh = join(lastH, 0), yc = join(lastC, 0);
  if (layout) {
    // [T, D, B, H] -> [B, T, D, H]; [D, B, H] -> [B, D, H].
    y = im.create<TransposeOp>(y, ArrayRef<int64_t>{2, 0, 1, 3});
    yh = im.create<TransposeOp>(yh, ArrayRef<int64_t>{1, 0, 2});
    yc = im.create<TransposeOp>(yc, ArrayRef<int64_t>{1, 0, 2});
  }
  im.setOutput(0, y);
  im.setOutput(1, yh);
  if (cell == Cell::LSTM)
    im.setOutput(2, yc);
  return success();
}

} // namespace

void mlir::tandem::onnx_import::registerRecurrentConverters(ConverterMap &map) {
  map["LSTM"] = [](GraphImporter &im) {
    return convertRecurrent(im, Cell::LSTM);
  };
  map["GRU"] = [](GraphImporter &im) {
    return convertRecurrent(im, Cell::GRU);
  };
  map["RNN"] = [](GraphImporter &im) {
    return convertRecurrent(im, Cell::RNN);
  };
}

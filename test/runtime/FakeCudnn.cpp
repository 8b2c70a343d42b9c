//===- FakeCudnn.cpp - A fake cuDNN for the CUDA backend's tests ----------===//
//
// libtandem_fake_cudnn.so stands in for libcudnn.so.9 so that the runtime's
// cuDNN path (runtime/src/device/cudnn.cpp) can be tested on machines
// without a GPU: point TANDEM_CUDNN_LIBRARY at it, and TANDEM_CUDA_DRIVER
// at the fake driver (FakeCudaDriver.cpp). It exports, with C linkage and
// cudnn.h's signatures, every legacy-API entry point the backend loads.
//
// Descriptors keep what they were set to. A convolution checks its
// descriptors against each other and every device range against the fake
// driver's live allocations (a CUdeviceptr is a host address there), then
// computes on the host, in stream order, through the driver's
// tandem_fake_cuda_enqueue_host: so a capture records it and each replay
// recomputes it. The convolution is a plain loop of its own (not the
// runtime's), so tests compare two implementations.
//
// cudnnGetConvolutionForwardAlgorithm_v7 ranks GEMM (algorithm 2, needing
// kGemmWorkspace bytes, more than the backend's workspace) first, then
// IMPLICIT_GEMM (0, no workspace), then IMPLICIT_PRECOMP_GEMM (1), so the
// backend's workspace limit decides; cudnnConvolutionBiasActivationForward
// accepts the identity activation only with IMPLICIT_PRECOMP_GEMM, as the
// real one. Tests read the calls through tandem_fake_cudnn_* at the end.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <dlfcn.h>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using Status = int;
constexpr Status kSuccess = 0;
constexpr Status kBadParam = 2000;
constexpr Status kNotSupported = 3000;
constexpr Status kExecutionFailed = 5000;

constexpr int kAlgoImplicitGemm = 0;
constexpr int kAlgoImplicitPrecompGemm = 1;
constexpr int kAlgoGemm = 2;
/// Workspace bytes the fake's GEMM algorithm asks for.
constexpr size_t kGemmWorkspace = size_t(1) << 30;

constexpr int kSigmoid = 0, kRelu = 1, kClippedRelu = 3, kIdentity = 5,
              kSwish = 6;

/// The fake driver's hooks, from the library TANDEM_CUDA_DRIVER names
/// (the same instance the backend loaded).
struct Driver {
  int (*enqueueHost)(void *, void (*)(void *), const void *, size_t) = nullptr;
  int (*inAllocation)(unsigned long long, size_t) = nullptr;
};

const Driver &driver() {
  static const Driver d = [] {
    Driver d;
    const char *path = std::getenv("TANDEM_CUDA_DRIVER");
    void *handle = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (handle) {
      d.enqueueHost = reinterpret_cast<decltype(d.enqueueHost)>(
          dlsym(handle, "tandem_fake_cuda_enqueue_host"));
      d.inAllocation = reinterpret_cast<decltype(d.inAllocation)>(
          dlsym(handle, "tandem_fake_cuda_in_allocation"));
    }
    return d;
  }();
  return d;
}

/// What tests read back.
struct Counters {
  std::mutex mutex;
  int handles = 0, descriptors = 0;
  int convolutions = 0, fused = 0, adds = 0, activations = 0;
  int algoQueries = 0, lastAlgo = -1, lastMath = -1, lastFormat = -1;
  size_t lastWorkspace = 0;
};
Counters &counters() {
  static Counters *c = new Counters;
  return *c;
}

} // namespace

struct cudnnContext {
  void *stream = nullptr;
};
struct cudnnTensorStruct {
  int n = 0, c = 0, h = 0, w = 0;
  int format = 0; ///< 0 NCHW, 1 NHWC
};
struct cudnnFilterStruct {
  int k = 0, c = 0, r = 0, s = 0;
  int format = 0; ///< 0 KCRS, 1 KRSC
};
struct cudnnConvolutionStruct {
  int padH = 0, padW = 0, strideH = 1, strideW = 1, dilH = 1, dilW = 1;
  int groups = 1, math = 0;
  bool set = false;
};
struct cudnnActivationStruct {
  int mode = kRelu;
  double coef = 0, beta = 1;
};
struct CUstream_st;

struct cudnnConvolutionFwdAlgoPerf_t {
  int algo;
  Status status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

namespace {

/// One convolution (and its epilogue) for the host: everything by value.
struct Work {
  cudnnTensorStruct x, y;
  cudnnFilterStruct w;
  cudnnConvolutionStruct conv;
  const float *xp, *wp, *zp, *biasp;
  float *yp;
  float alpha1, alpha2, beta;
  bool hasActivation;
  cudnnActivationStruct act;
};

float activate(const cudnnActivationStruct &a, float v) {
  switch (a.mode) {
  case kRelu:
    return v > 0 ? v : 0;
  case kClippedRelu:
    return v < 0 ? 0 : (v > a.coef ? static_cast<float>(a.coef) : v);
  case kSigmoid:
    return 1.0f / (1.0f + std::exp(-v));
  case kSwish:
    return v / (1.0f + std::exp(-static_cast<float>(a.beta) * v));
  default:
    return v;
  }
}

/// An operand as the convolution's math type sees it: CUDNN_TENSOR_OP_MATH
/// rounds f32 to TF32 (11 significant bits, f32's range),
/// CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION to FP16; both to nearest even.
/// (Written differently from the runtime's precision.cpp on purpose.)
float asMathSees(int math, float v) {
  if (math == 1 && std::isfinite(v) && v != 0) {
    int e;
    float m = std::frexp(v, &e); // |m| in [0.5, 1)
    return std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11);
  }
  if (math == 2)
    return static_cast<float>(static_cast<_Float16>(v));
  return v;
}

/// Where element (b, ch, i, j) of `t` lies in its format.
size_t at(const cudnnTensorStruct &t, int b, int ch, int i, int j) {
  if (t.format == 1)
    return ((size_t(b) * t.h + i) * t.w + j) * t.c + ch;
  return ((size_t(b) * t.c + ch) * t.h + i) * t.w + j;
}

/// Where tap (o, ci, u, v) of filter `f` lies in its format.
size_t at(const cudnnFilterStruct &f, int o, int ci, int u, int v) {
  if (f.format == 1)
    return ((size_t(o) * f.r + u) * f.s + v) * f.c + ci;
  return ((size_t(o) * f.c + ci) * f.r + u) * f.s + v;
}

void runConvolution(void *env) {
  const Work &k = *static_cast<const Work *>(env);
  int math = k.conv.math;
  int cg = k.x.c / k.conv.groups, kg = k.y.c / k.conv.groups;
  for (int b = 0; b < k.y.n; ++b)
    for (int o = 0; o < k.y.c; ++o)
      for (int i = 0; i < k.y.h; ++i)
        for (int j = 0; j < k.y.w; ++j) {
          double sum = 0;
          int g = o / kg;
          for (int ci = 0; ci < cg; ++ci)
            for (int u = 0; u < k.w.r; ++u)
              for (int v = 0; v < k.w.s; ++v) {
                int ih = i * k.conv.strideH - k.conv.padH + u * k.conv.dilH;
                int iw = j * k.conv.strideW - k.conv.padW + v * k.conv.dilW;
                if (ih < 0 || ih >= k.x.h || iw < 0 || iw >= k.x.w)
                  continue;
                sum += double(asMathSees(
                           math, k.xp[at(k.x, b, g * cg + ci, ih, iw)])) *
                       asMathSees(math, k.wp[at(k.w, o, ci, u, v)]);
              }
          size_t out = at(k.y, b, o, i, j);
          float value = k.alpha1 * static_cast<float>(sum);
          if (k.zp)
            value += k.alpha2 * k.zp[out];
          if (k.biasp)
            value += k.biasp[o];
          if (k.beta != 0)
            value += k.beta * k.yp[out];
          k.yp[out] = k.hasActivation ? activate(k.act, value) : value;
        }
}

/// y = alpha x + beta y, or y = act(alpha x) + beta y (in place allowed).
struct Pointwise {
  size_t count;
  const float *x;
  float *y;
  float alpha, beta;
  bool hasActivation;
  cudnnActivationStruct act;
};

void runPointwise(void *env) {
  const Pointwise &p = *static_cast<const Pointwise *>(env);
  for (size_t i = 0; i < p.count; ++i) {
    float v = p.alpha * p.x[i];
    if (p.hasActivation)
      v = activate(p.act, v);
    p.y[i] = v + (p.beta != 0 ? p.beta * p.y[i] : 0.0f);
  }
}

size_t elements(const cudnnTensorStruct &t) {
  return size_t(t.n) * t.c * t.h * t.w;
}

bool inDevice(const void *ptr, size_t count) {
  return driver().inAllocation &&
         driver().inAllocation(
             static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(ptr)),
             count * sizeof(float));
}

/// The output size the descriptors give, as cudnnGetConvolution2d...
bool shapesAgree(const cudnnTensorStruct &x, const cudnnFilterStruct &w,
                 const cudnnConvolutionStruct &c, const cudnnTensorStruct &y) {
  // cuDNN wants one layout for the data and the filter.
  if (!c.set || c.groups < 1 || x.c != w.c * c.groups || w.k % c.groups ||
      y.n != x.n || y.c != w.k || x.format != y.format || x.format != w.format)
    return false;
  int p = (x.h + 2 * c.padH - c.dilH * (w.r - 1) - 1) / c.strideH + 1;
  int q = (x.w + 2 * c.padW - c.dilW * (w.s - 1) - 1) / c.strideW + 1;
  return y.h == p && y.w == q;
}

size_t workspaceOf(int algo) { return algo == kAlgoGemm ? kGemmWorkspace : 0; }

Status convolve(cudnnContext *h, const float *alpha1,
                const cudnnTensorStruct *x, const void *xp,
                const cudnnFilterStruct *w, const void *wp,
                const cudnnConvolutionStruct *c, int algo, size_t workspace,
                const float *alpha2, const cudnnTensorStruct *zd,
                const void *zp, const cudnnTensorStruct *bias,
                const void *biasp, const cudnnActivationStruct *act,
                const float *beta, const cudnnTensorStruct *y, void *yp) {
  if (!h || !alpha1 || !x || !w || !c || !y || !xp || !wp || !yp ||
      !shapesAgree(*x, *w, *c, *y))
    return kBadParam;
  if (algo < kAlgoImplicitGemm || algo > kAlgoGemm ||
      workspace < workspaceOf(algo))
    return kBadParam;
  if (!inDevice(xp, elements(*x)) ||
      !inDevice(wp, size_t(w->k) * w->c * w->r * w->s) ||
      !inDevice(yp, elements(*y)))
    return kBadParam;
  Work work{*x,
            *y,
            *w,
            *c,
            static_cast<const float *>(xp),
            static_cast<const float *>(wp),
            nullptr,
            nullptr,
            static_cast<float *>(yp),
            *alpha1,
            0,
            beta ? *beta : 0,
            false,
            {}};
  if (bias) {
    // The fused call.
    if (!zd || !zp || !biasp || !act || !alpha2 || zd->format != y->format ||
        zd->n != y->n || zd->c != y->c || zd->h != y->h || zd->w != y->w ||
        bias->n != 1 || bias->c != y->c || bias->h != 1 || bias->w != 1 ||
        !inDevice(biasp, size_t(y->c)))
      return kBadParam;
    if (act->mode != kRelu && act->mode != kIdentity)
      return kNotSupported;
    if (act->mode == kIdentity && algo != kAlgoImplicitPrecompGemm)
      return kNotSupported;
    work.alpha2 = *alpha2;
    if (*alpha2 != 0) {
      if (!inDevice(zp, elements(*y)))
        return kBadParam;
      work.zp = static_cast<const float *>(zp);
    }
    work.biasp = static_cast<const float *>(biasp);
    work.hasActivation = true;
    work.act = *act;
  }
  if (!driver().enqueueHost)
    return kExecutionFailed;
  {
    Counters &n = counters();
    std::lock_guard<std::mutex> lock(n.mutex);
    ++n.convolutions;
    n.fused += bias ? 1 : 0;
    n.lastAlgo = algo;
    n.lastWorkspace = workspace;
    n.lastMath = c->math;
    n.lastFormat = x->format;
  }
  return driver().enqueueHost(h->stream, runConvolution, &work, sizeof(work))
             ? kExecutionFailed
             : kSuccess;
}

} // namespace

FAKE_EXPORT Status cudnnCreate(cudnnContext **handle) {
  if (!handle)
    return kBadParam;
  *handle = new cudnnContext;
  std::lock_guard<std::mutex> lock(counters().mutex);
  ++counters().handles;
  return kSuccess;
}

FAKE_EXPORT Status cudnnDestroy(cudnnContext *handle) {
  if (!handle)
    return kBadParam;
  delete handle;
  std::lock_guard<std::mutex> lock(counters().mutex);
  --counters().handles;
  return kSuccess;
}

FAKE_EXPORT Status cudnnSetStream(cudnnContext *handle, CUstream_st *stream) {
  if (!handle)
    return kBadParam;
  handle->stream = stream;
  return kSuccess;
}

/// Create / destroy of one descriptor type, counted.
#define FAKE_DESCRIPTOR(Type, create, destroy)                                 \
  FAKE_EXPORT Status create(Type **out) {                                      \
    if (!out)                                                                  \
      return kBadParam;                                                        \
    *out = new Type;                                                           \
    std::lock_guard<std::mutex> lock(counters().mutex);                        \
    ++counters().descriptors;                                                  \
    return kSuccess;                                                           \
  }                                                                            \
  FAKE_EXPORT Status destroy(Type *desc) {                                     \
    if (!desc)                                                                 \
      return kBadParam;                                                        \
    delete desc;                                                               \
    std::lock_guard<std::mutex> lock(counters().mutex);                        \
    --counters().descriptors;                                                  \
    return kSuccess;                                                           \
  }
FAKE_DESCRIPTOR(cudnnTensorStruct, cudnnCreateTensorDescriptor,
                cudnnDestroyTensorDescriptor)
FAKE_DESCRIPTOR(cudnnFilterStruct, cudnnCreateFilterDescriptor,
                cudnnDestroyFilterDescriptor)
FAKE_DESCRIPTOR(cudnnConvolutionStruct, cudnnCreateConvolutionDescriptor,
                cudnnDestroyConvolutionDescriptor)
FAKE_DESCRIPTOR(cudnnActivationStruct, cudnnCreateActivationDescriptor,
                cudnnDestroyActivationDescriptor)
#undef FAKE_DESCRIPTOR

FAKE_EXPORT Status cudnnSetTensor4dDescriptor(cudnnTensorStruct *t, int format,
                                              int type, int n, int c, int h,
                                              int w) {
  if (!t || (format != 0 && format != 1) || type != 0 || n < 1 || c < 1 ||
      h < 1 || w < 1)
    return kBadParam;
  *t = {n, c, h, w, format};
  return kSuccess;
}

FAKE_EXPORT Status cudnnSetFilter4dDescriptor(cudnnFilterStruct *f, int type,
                                              int format, int k, int c, int r,
                                              int s) {
  if (!f || (format != 0 && format != 1) || type != 0 || k < 1 || c < 1 ||
      r < 1 || s < 1)
    return kBadParam;
  *f = {k, c, r, s, format};
  return kSuccess;
}

FAKE_EXPORT Status cudnnSetConvolution2dDescriptor(cudnnConvolutionStruct *c,
                                                   int padH, int padW, int u,
                                                   int v, int dilH, int dilW,
                                                   int mode, int type) {
  // Only cross-correlation in f32, as the backend asks.
  if (!c || padH < 0 || padW < 0 || u < 1 || v < 1 || dilH < 1 || dilW < 1 ||
      mode != 1 || type != 0)
    return kBadParam;
  c->padH = padH, c->padW = padW, c->strideH = u, c->strideW = v;
  c->dilH = dilH, c->dilW = dilW, c->set = true;
  return kSuccess;
}

FAKE_EXPORT Status cudnnSetConvolutionGroupCount(cudnnConvolutionStruct *c,
                                                 int groups) {
  if (!c || groups < 1)
    return kBadParam;
  c->groups = groups;
  return kSuccess;
}

FAKE_EXPORT Status cudnnSetConvolutionMathType(cudnnConvolutionStruct *c,
                                               int math) {
  if (!c || math < 0 || math > 3)
    return kBadParam;
  c->math = math;
  return kSuccess;
}

FAKE_EXPORT Status cudnnSetActivationDescriptor(cudnnActivationStruct *a,
                                                int mode, int nan,
                                                double coef) {
  if (!a ||
      (mode != kSigmoid && mode != kRelu && mode != kClippedRelu &&
       mode != kIdentity && mode != kSwish) ||
      (nan != 0 && nan != 1))
    return kBadParam;
  a->mode = mode;
  a->coef = coef;
  return kSuccess;
}

FAKE_EXPORT Status
cudnnSetActivationDescriptorSwishBeta(cudnnActivationStruct *a, double beta) {
  if (!a)
    return kBadParam;
  a->beta = beta;
  return kSuccess;
}

FAKE_EXPORT Status cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnContext *h, const cudnnTensorStruct *x, const cudnnFilterStruct *w,
    const cudnnConvolutionStruct *c, const cudnnTensorStruct *y, int requested,
    int *returned, cudnnConvolutionFwdAlgoPerf_t *perf) {
  if (!h || !x || !w || !c || !y || !returned || !perf || requested < 1)
    return kBadParam;
  if (!shapesAgree(*x, *w, *c, *y))
    return kBadParam;
  const int ranking[] = {kAlgoGemm, kAlgoImplicitGemm,
                         kAlgoImplicitPrecompGemm};
  int n = requested < 3 ? requested : 3;
  for (int i = 0; i < n; ++i) {
    perf[i] = {};
    perf[i].algo = ranking[i];
    perf[i].status = kSuccess;
    perf[i].time = static_cast<float>(i + 1);
    perf[i].memory = workspaceOf(ranking[i]);
    perf[i].mathType = c->math;
  }
  *returned = n;
  std::lock_guard<std::mutex> lock(counters().mutex);
  ++counters().algoQueries;
  return kSuccess;
}

FAKE_EXPORT Status cudnnGetConvolutionForwardWorkspaceSize(
    cudnnContext *h, const cudnnTensorStruct *x, const cudnnFilterStruct *w,
    const cudnnConvolutionStruct *c, const cudnnTensorStruct *y, int algo,
    size_t *bytes) {
  if (!h || !x || !w || !c || !y || !bytes || algo < 0 || algo > kAlgoGemm ||
      !shapesAgree(*x, *w, *c, *y))
    return kBadParam;
  *bytes = workspaceOf(algo);
  return kSuccess;
}

FAKE_EXPORT Status cudnnConvolutionForward(
    cudnnContext *h, const void *alpha, const cudnnTensorStruct *x,
    const void *xp, const cudnnFilterStruct *w, const void *wp,
    const cudnnConvolutionStruct *c, int algo, void *workspace,
    size_t workspaceBytes, const void *beta, const cudnnTensorStruct *y,
    void *yp) {
  (void)workspace;
  if (!beta)
    return kBadParam;
  return convolve(h, static_cast<const float *>(alpha), x, xp, w, wp, c, algo,
                  workspaceBytes, nullptr, nullptr, nullptr, nullptr, nullptr,
                  nullptr, static_cast<const float *>(beta), y, yp);
}

FAKE_EXPORT Status cudnnConvolutionBiasActivationForward(
    cudnnContext *h, const void *alpha1, const cudnnTensorStruct *x,
    const void *xp, const cudnnFilterStruct *w, const void *wp,
    const cudnnConvolutionStruct *c, int algo, void *workspace,
    size_t workspaceBytes, const void *alpha2, const cudnnTensorStruct *z,
    const void *zp, const cudnnTensorStruct *bias, const void *biasp,
    const cudnnActivationStruct *act, const cudnnTensorStruct *y, void *yp) {
  (void)workspace;
  if (!bias)
    return kBadParam;
  return convolve(h, static_cast<const float *>(alpha1), x, xp, w, wp, c, algo,
                  workspaceBytes, static_cast<const float *>(alpha2), z, zp,
                  bias, biasp, act, nullptr, y, yp);
}

FAKE_EXPORT Status cudnnAddTensor(cudnnContext *h, const void *alpha,
                                  const cudnnTensorStruct *a, const void *ap,
                                  const void *beta, const cudnnTensorStruct *c,
                                  void *cp) {
  if (!h || !alpha || !a || !ap || !beta || !c || !cp || a->n != c->n ||
      a->c != c->c || a->h != c->h || a->w != c->w || a->format != c->format ||
      !inDevice(ap, elements(*a)) || !inDevice(cp, elements(*c)))
    return kBadParam;
  Pointwise p{elements(*c),
              static_cast<const float *>(ap),
              static_cast<float *>(cp),
              *static_cast<const float *>(alpha),
              *static_cast<const float *>(beta),
              false,
              {}};
  {
    std::lock_guard<std::mutex> lock(counters().mutex);
    ++counters().adds;
  }
  return driver().enqueueHost &&
                 !driver().enqueueHost(h->stream, runPointwise, &p, sizeof(p))
             ? kSuccess
             : kExecutionFailed;
}

FAKE_EXPORT Status cudnnActivationForward(
    cudnnContext *h, cudnnActivationStruct *act, const void *alpha,
    const cudnnTensorStruct *x, const void *xp, const void *beta,
    const cudnnTensorStruct *y, void *yp) {
  if (!h || !act || !alpha || !x || !xp || !beta || !y || !yp ||
      elements(*x) != elements(*y) || x->format != y->format ||
      !inDevice(xp, elements(*x)) || !inDevice(yp, elements(*y)))
    return kBadParam;
  Pointwise p{elements(*y),
              static_cast<const float *>(xp),
              static_cast<float *>(yp),
              *static_cast<const float *>(alpha),
              *static_cast<const float *>(beta),
              true,
              *act};
  {
    std::lock_guard<std::mutex> lock(counters().mutex);
    ++counters().activations;
  }
  return driver().enqueueHost &&
                 !driver().enqueueHost(h->stream, runPointwise, &p, sizeof(p))
             ? kSuccess
             : kExecutionFailed;
}

// Test hooks.

/// Calls of each kind since the last reset: convolutions (of which fused),
/// cudnnAddTensor, cudnnActivationForward, algorithm queries.
FAKE_EXPORT void tandem_fake_cudnn_counts(int *convolutions, int *fused,
                                          int *adds, int *activations,
                                          int *algoQueries) {
  Counters &n = counters();
  std::lock_guard<std::mutex> lock(n.mutex);
  *convolutions = n.convolutions;
  *fused = n.fused;
  *adds = n.adds;
  *activations = n.activations;
  *algoQueries = n.algoQueries;
}

/// The algorithm and workspace bytes of the last convolution.
FAKE_EXPORT int tandem_fake_cudnn_last_algo(size_t *workspaceBytes) {
  Counters &n = counters();
  std::lock_guard<std::mutex> lock(n.mutex);
  *workspaceBytes = n.lastWorkspace;
  return n.lastAlgo;
}

/// The cudnnMathType_t of the last convolution's descriptor (-1: none yet).
FAKE_EXPORT int tandem_fake_cudnn_last_math(void) {
  Counters &n = counters();
  std::lock_guard<std::mutex> lock(n.mutex);
  return n.lastMath;
}

/// The cudnnTensorFormat_t of the last convolution's x (-1: none yet).
FAKE_EXPORT int tandem_fake_cudnn_last_format(void) {
  Counters &n = counters();
  std::lock_guard<std::mutex> lock(n.mutex);
  return n.lastFormat;
}

/// Live handles plus live descriptors (0 once everything is destroyed).
FAKE_EXPORT int tandem_fake_cudnn_live_objects(void) {
  Counters &n = counters();
  std::lock_guard<std::mutex> lock(n.mutex);
  return n.handles + n.descriptors;
}

FAKE_EXPORT void tandem_fake_cudnn_reset(void) {
  Counters &n = counters();
  std::lock_guard<std::mutex> lock(n.mutex);
  n.convolutions = n.fused = n.adds = n.activations = n.algoQueries = 0;
  n.lastAlgo = n.lastMath = n.lastFormat = -1;
  n.lastWorkspace = 0;
}

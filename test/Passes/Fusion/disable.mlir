// Bisecting: disable-fusion switches kinds off, disable-fusion-of keeps
// ops whose node name matches a glob out of every merge. Singletons still
// become fusions (one kernel each). Bad option values are diagnosed.
// RUN: tandem-opt %s -tandem-fuse | FileCheck %s --check-prefix=ALL
// RUN: tandem-opt %s -tandem-fuse=disable-fusion=output | FileCheck %s --check-prefix=NOOUTPUT
// RUN: tandem-opt %s -tandem-fuse=disable-fusion=output,input | FileCheck %s --check-prefix=NOINPUT
// RUN: tandem-opt %s -tandem-fuse=disable-fusion=loop,input,output,multi_output | FileCheck %s --check-prefix=NONE
// RUN: tandem-opt %s '-tandem-fuse=disable-fusion-of=block/relu*' | FileCheck %s --check-prefix=NODE
// RUN: not tandem-opt %s -tandem-fuse=disable-fusion=loop,bogus 2>&1 | FileCheck %s --check-prefix=BADKIND
// RUN: not tandem-opt %s '-tandem-fuse=disable-fusion-of=conv[' 2>&1 | FileCheck %s --check-prefix=BADGLOB
// RUN: not tandem-opt %s -tandem-fuse=max-ops=0 2>&1 | FileCheck %s --check-prefix=BADLIMIT

// BADKIND: error: tandem-fuse: unknown fusion kind 'bogus' in disable-fusion (expected loop, input, output or multi_output)
// BADGLOB: error: tandem-fuse: invalid node glob 'conv[' in disable-fusion-of: invalid glob pattern, unmatched '['
// BADLIMIT: error: tandem-fuse: max-ops and max-operands must be at least 1, got 0 and 12

// By default the conv takes relu, exp and neg as its epilogue; the sum is
// an input fusion of its own.
// ALL-LABEL: func.func @bisect
// ALL: tandem.fusion output "fusion.block_conv"
// ALL-NEXT: ^bb0
// ALL-NEXT: tandem.conv2d
// ALL-NEXT: tandem.relu
// ALL-NEXT: tandem.exp
// ALL-NEXT: tandem.neg
// ALL-NEXT: tandem.yield
// ALL: tandem.fusion input "fusion.block_sum"
// ALL-NOT: tandem.fusion

// Without output fusions the conv is a kernel of its own and the
// elementwise ops join the reduction's input fusion.
// NOOUTPUT-LABEL: func.func @bisect
// NOOUTPUT: tandem.fusion output "fusion.block_conv"
// NOOUTPUT-NEXT: ^bb0
// NOOUTPUT-NEXT: tandem.conv2d
// NOOUTPUT-NEXT: tandem.yield
// NOOUTPUT: tandem.fusion input "fusion.block_sum"
// NOOUTPUT-NEXT: ^bb0
// NOOUTPUT-NEXT: tandem.relu
// NOOUTPUT-NEXT: tandem.exp
// NOOUTPUT-NEXT: tandem.neg
// NOOUTPUT-NEXT: tandem.reduce_sum

// Without output and input fusions the elementwise ops form a loop fusion.
// NOINPUT-LABEL: func.func @bisect
// NOINPUT: tandem.fusion output "fusion.block_conv"
// NOINPUT: tandem.fusion loop "fusion.block_neg"
// NOINPUT-NEXT: ^bb0
// NOINPUT-NEXT: tandem.relu
// NOINPUT-NEXT: tandem.exp
// NOINPUT-NEXT: tandem.neg
// NOINPUT-NEXT: tandem.yield
// NOINPUT: tandem.fusion input "fusion.block_sum"

// With every kind disabled each op is a kernel of its own.
// NONE-LABEL: func.func @bisect
// NONE-COUNT-5: tandem.fusion
// NONE-NOT: tandem.fusion

// The glob pins the relu: it is a kernel of its own.
// NODE-LABEL: func.func @bisect
// NODE: tandem.fusion output "fusion.block_conv"
// NODE-NEXT: ^bb0
// NODE-NEXT: tandem.conv2d
// NODE-NEXT: tandem.yield
// NODE: tandem.fusion loop "fusion.block_relu"
// NODE-NEXT: ^bb0
// NODE-NEXT: tandem.relu
// NODE-NEXT: tandem.yield
// NODE: tandem.fusion input "fusion.block_sum"
func.func @bisect(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x1xf32> {
  %0 = tandem.conv2d %x, %w {dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("block/conv")
  %1 = tandem.relu %0 : tensor<1x4x6x6xf32> loc("block/relu")
  %2 = tandem.exp %1 : tensor<1x4x6x6xf32> loc("block/exp")
  %3 = tandem.neg %2 : tensor<1x4x6x6xf32> loc("block/neg")
  %4 = tandem.reduce_sum %3 {axes = array<i64: 3>} : tensor<1x4x6x6xf32> -> tensor<1x4x6x1xf32> loc("block/sum")
  return %4 : tensor<1x4x6x1xf32>
}

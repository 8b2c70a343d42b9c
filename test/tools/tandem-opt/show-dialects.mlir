// tandem-opt registers the tandem dialect next to the upstream dialects the
// pipeline lowers through.
// RUN: tandem-opt --show-dialects | FileCheck %s
// CHECK: Available Dialects:
// CHECK-SAME: bufferization
// CHECK-SAME: gpu
// CHECK-SAME: linalg
// CHECK-SAME: llvm
// CHECK-SAME: nvvm
// CHECK-SAME: tandem

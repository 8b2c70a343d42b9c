// The placement report: per op its node name, device, cost on every device
// and reason, plus the estimated totals; as JSON and as a table.
// RUN: tandem-opt %s -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic pins=post*=cpu report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// RUN: tandem-opt %s -tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic pins=post*=cpu report=%t.txt" -o /dev/null
// RUN: FileCheck %s --input-file=%t.txt --check-prefix=TABLE

// JSON:      "devices": [
// JSON:          "name": "/device:CPU:0",
// JSON-NEXT:     "preset": "generic",
// JSON:          "host_to_device_gbps": 50,
// JSON:          "name": "/device:GPU:0",
// JSON-NEXT:     "preset": "h100",
// JSON:      "functions": [
// JSON:          "estimated_latency_us": {{[0-9.]+}},
// JSON:          "name": "net",
// JSON:          "ops": [
// JSON:              "cost_us": {
// JSON-NEXT:           "/device:CPU:0": 0,
// JSON-NEXT:           "/device:GPU:0": 0
// JSON:              "device": "/device:GPU:0",
// JSON:              "node": "weight",
// JSON-NEXT:         "op": "tandem.constant",
// JSON-NEXT:         "reason": "weight"
// JSON:              "cost_us": {
// JSON-NEXT:           "/device:CPU:0": 280.93{{[0-9]*}},
// JSON-NEXT:           "/device:GPU:0": 7.2{{[0-9]*}}
// JSON:              "device": "/device:GPU:0",
// JSON:              "node": "conv1",
// JSON-NEXT:         "op": "tandem.conv2d",
// JSON-NEXT:         "reason": "cheaper"
// JSON:              "detail": "--place 'post*=cpu'",
// JSON-NEXT:         "device": "/device:CPU:0",
// JSON:              "node": "postprocess",
// JSON-NEXT:         "op": "tandem.sigmoid",
// JSON-NEXT:         "reason": "pinned"
// JSON:          "transfer_bytes": 1549312,
// JSON-NEXT:     "transfers": 2

// TABLE: devices:
// TABLE: /device:CPU:0  generic
// TABLE: /device:GPU:0  h100     sm_90
// TABLE: placement of @net
// TABLE: node         op               device          reason                /device:CPU:0 us    /device:GPU:0 us  detail
// TABLE: weight       tandem.constant  /device:GPU:0   weight                            0.00                0.00  resident on every device that uses it
// TABLE: conv1        tandem.conv2d    /device:GPU:0   cheaper                         280.94                7.21
// TABLE: postprocess  tandem.sigmoid   /device:CPU:0   pinned                            3.40                0.06  --place 'post*=cpu'
// TABLE: estimated latency {{.*}} us (all on /device:CPU:0: {{.*}} us); 2 transfers, 1549312 bytes
func.func @net(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x54x54xf32> {
  %w = tandem.constant dense<0.5> : tensor<64x64x3x3xf32> loc("weight")
  %0 = tandem.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x54x54xf32> loc("conv1")
  %1 = tandem.sigmoid %0 : tensor<1x64x54x54xf32> loc("postprocess")
  return %1 : tensor<1x64x54x54xf32>
}

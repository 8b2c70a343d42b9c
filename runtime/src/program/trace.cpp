//===- trace.cpp - Chrome/Perfetto traces of model runs -------------------===//

#include "program/trace.h"

#include <cinttypes>
#include <cstdio>

namespace tandem {
namespace sched {

namespace {

/// `text` as a JSON string body.
std::string escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", u);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out;
}

} // namespace

void Trace::nameTrack(int tid, const std::string &name) {
  std::lock_guard<std::mutex> lock(mutex);
  trackNames[tid] = name;
}

void Trace::addStream(tandem_stream_s *stream, int tid) {
  std::lock_guard<std::mutex> lock(mutex);
  streamTracks[stream] = tid;
}

void Trace::span(int tid, const std::string &name, const char *category,
                 uint64_t startNs, uint64_t endNs, int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  events.push_back(Event{tid, name, category, startNs, endNs, bytes});
}

void Trace::onOp(tandem_stream_s *stream, tandem::device::OpKind kind,
                 const char *name, uint64_t bytes, uint64_t startNs,
                 uint64_t endNs) {
  int tid = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = streamTracks.find(stream);
    if (it == streamTracks.end())
      return;
    tid = it->second;
  }
  using tandem::device::OpKind;
  switch (kind) {
  case OpKind::Kernel:
    span(tid, name, "kernel", startNs, endNs);
    break;
  case OpKind::H2D:
    span(tid, "copy h2d", "copy", startNs, endNs, static_cast<int64_t>(bytes));
    break;
  case OpKind::D2H:
    span(tid, "copy d2h", "copy", startNs, endNs, static_cast<int64_t>(bytes));
    break;
  case OpKind::D2D:
    span(tid, "copy d2d", "copy", startNs, endNs, static_cast<int64_t>(bytes));
    break;
  case OpKind::Graph:
    span(tid, name && *name ? name : "graph", "graph", startNs, endNs);
    break;
  }
}

bool Trace::write() const {
  std::lock_guard<std::mutex> lock(mutex);
  FILE *file = std::fopen(path.c_str(), "w");
  if (!file)
    return false;
  std::fputs("[\n", file);
  bool first = true;
  auto separator = [&] {
    if (!first)
      std::fputs(",\n", file);
    first = false;
  };
  for (const auto &track : trackNames) {
    separator();
    std::fprintf(file,
                 "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
                 "\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                 track.first, escape(track.second).c_str());
  }
  for (const Event &event : events) {
    separator();
    uint64_t start = event.startNs > baseNs ? event.startNs - baseNs : 0;
    uint64_t end =
        event.endNs > event.startNs ? event.endNs - event.startNs : 0;
    std::fprintf(file,
                 "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,"
                 "\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f",
                 escape(event.name).c_str(), event.category, event.tid,
                 static_cast<double>(start) / 1000.0,
                 static_cast<double>(end) / 1000.0);
    if (event.bytes >= 0)
      std::fprintf(file, ",\"args\":{\"bytes\":%" PRId64 "}", event.bytes);
    std::fputs("}", file);
  }
  std::fputs("\n]\n", file);
  return std::fclose(file) == 0;
}

} // namespace sched
} // namespace tandem

// timeline_svg.cpp: timeline_svg of zkpipe/pipeline/trace.h, a self-contained SVG picture of a
// run: title, one row per track, one rect per span, a time axis in seconds and a legend.
// Thread-safety: pure function of its arguments.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/pipeline/trace.h"

namespace zkpipe::pipeline {
namespace {

constexpr int kWidth = 1600;        // px, the whole picture
constexpr int kRowHeight = 22;      // px per track
constexpr int kRectHeight = 16;     // px, a span inside its row
constexpr int kTitleHeight = 36;    // px above the first row
constexpr int kRightMargin = 20;    // px
constexpr double kCharWidth = 7.2;  // px per character of 12 px monospace text
constexpr double kMinRectWidth = 0.5;
constexpr int kLegendRowHeight = 18;
constexpr int kMaxTicks = 10;

// Fixed colours of the span names the pipeline records; other names hash into kPalette.
struct NamedColour {
  std::string_view name;
  std::string_view colour;
};
constexpr std::array<NamedColour, 10> kNamedColours = {{{"synthesis", "#4e79a7"},
                                                        {"h2d", "#f28e2b"},
                                                        {"ntt", "#e15759"},
                                                        {"msm", "#76b7b2"},
                                                        {"prove_start", "#59a14f"},
                                                        {"prove_finish", "#edc948"},
                                                        {"verify", "#b07aa1"},
                                                        {"finalize", "#ff9da7"},
                                                        {"trim", "#9c755f"},
                                                        {"d2h", "#8cd17d"}}};
constexpr std::array<std::string_view, 12> kPalette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                       "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                       "#bcbd22", "#17becf", "#aec7e8", "#ffbb78"};

std::string_view colour_of(std::string_view name) {
  for (const NamedColour& c : kNamedColours) {
    if (c.name == name) return c.colour;
  }
  uint64_t hash = 14695981039346656037ull;  // FNV-1a: stable across runs and platforms
  for (unsigned char ch : name) hash = (hash ^ ch) * 1099511628211ull;
  return kPalette[hash % kPalette.size()];
}

// Length of the valid UTF-8 sequence at text[i], or 0 when it is not one.
size_t utf8_length(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// Text safe inside an XML element or attribute: escapes the five special characters and
// replaces control characters and invalid UTF-8 bytes (not allowed in XML 1.0) with '?'.
std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t n = utf8_length(text, i);
      if (n == 0) {
        out += '?';
        ++i;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ? '?' : char(c);
    }
    ++i;
  }
  return out;
}

double text_width(std::string_view text) {
  return kCharWidth * static_cast<double>(text.size());
}

// "job 3 partition 1 prove_start 812.3 ms (start 1.2345 s)"; waits say "[wait]".
std::string hover_text(const Span& s) {
  std::string out;
  if (s.job != 0) out += fmt::format("job {} ", s.job);
  if (s.partition >= 0) out += fmt::format("partition {} ", s.partition);
  const double ms = static_cast<double>(std::max<int64_t>(0, s.end_ns - s.start_ns)) / 1e6;
  out += fmt::format("{} {:.{}f} ms", s.name, ms, ms >= 1.0 ? 1 : 3);
  if (!s.busy) out += " [wait]";
  out += fmt::format(" (start {:.4f} s)", static_cast<double>(s.start_ns) / 1e9);
  return out;
}

struct LegendEntry {
  std::string name;
  bool busy = false;  // some span of this name is busy: a colour swatch, else hatched
  double x = 0, y = 0;
};

}  // namespace

std::string timeline_svg(const std::vector<Span>& spans, std::string_view title) {
  const std::vector<std::string> tracks = track_names(spans);

  // Time range: the spans' extent, from 0 when the run starts near the origin.
  int64_t t0 = 0, t1 = 1'000'000'000;
  if (!spans.empty()) {
    t0 = spans.front().start_ns;
    t1 = spans.front().end_ns;
    for (const Span& s : spans) {
      t0 = std::min(t0, s.start_ns);
      t1 = std::max({t1, s.start_ns, s.end_ns});
    }
    if (t0 >= 0 && t0 <= t1 / 10) t0 = 0;
    if (t1 - t0 < 1000) t1 = t0 + 1000;
  }

  double label_width = 80;
  for (const std::string& t : tracks) label_width = std::max(label_width, text_width(t) + 16);
  label_width = std::min(label_width, 400.0);
  const double plot_x = label_width;
  const double plot_w = kWidth - label_width - kRightMargin;
  const double px_per_ns = plot_w / static_cast<double>(t1 - t0);
  const auto x_of = [&](int64_t ns) { return plot_x + static_cast<double>(ns - t0) * px_per_ns; };

  const double rows_y = kTitleHeight;
  const double axis_y = rows_y + static_cast<double>(tracks.size()) * kRowHeight + 4;

  // Legend: one entry per distinct span name, flowing left to right.
  std::vector<LegendEntry> legend;
  for (const Span& s : spans) {
    auto it = std::find_if(legend.begin(), legend.end(),
                           [&](const LegendEntry& e) { return e.name == s.name; });
    if (it == legend.end())
      legend.push_back({s.name, s.busy});
    else
      it->busy = it->busy || s.busy;
  }
  std::sort(legend.begin(), legend.end(),
            [](const LegendEntry& a, const LegendEntry& b) { return a.name < b.name; });
  double lx = 10, ly = axis_y + 40;
  for (LegendEntry& e : legend) {
    const double w = 16 + text_width(e.name) + 18;
    if (lx > 10 && lx + w > kWidth - kRightMargin) {
      lx = 10;
      ly += kLegendRowHeight;
    }
    e.x = lx;
    e.y = ly;
    lx += w;
  }
  const double height = (legend.empty() ? axis_y + 40 : ly + kLegendRowHeight) + 8;

  std::string out;
  auto put = std::back_inserter(out);
  fmt::format_to(put,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" "
                 "viewBox=\"0 0 {0} {1:.0f}\" font-family=\"monospace\" font-size=\"12\">\n",
                 kWidth, height);
  out +=
      "<defs><pattern id=\"wait\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><path d=\"M0,0h6v6h-6z\" fill=\"#eeeeee\"/>"
      "<path d=\"M0,0v6\" stroke=\"#aaaaaa\" stroke-width=\"2\"/></pattern></defs>\n";
  fmt::format_to(put,
                 "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"{}\" height=\"{:.0f}\" "
                 "fill=\"#ffffff\"/>\n",
                 kWidth, height);
  fmt::format_to(put, "<text x=\"10\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
                 xml_escape(title));

  // Rows: a stripe and a label per track.
  for (size_t i = 0; i < tracks.size(); ++i) {
    const double y = rows_y + static_cast<double>(i) * kRowHeight;
    fmt::format_to(put,
                   "<rect class=\"row\" x=\"0\" y=\"{:.0f}\" width=\"{}\" height=\"{}\" "
                   "fill=\"{}\"/>\n",
                   y, kWidth, kRowHeight, i % 2 ? "#f4f4f4" : "#fbfbfb");
    fmt::format_to(put, "<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"end\">{}</text>\n",
                   label_width - 8, y + 15, xml_escape(tracks[i]));
  }

  // Spans, in span_less order so that the picture does not depend on the input order.
  std::vector<Span> sorted = spans;
  std::sort(sorted.begin(), sorted.end(), span_less);
  for (const Span& s : sorted) {
    const auto row = static_cast<size_t>(std::lower_bound(tracks.begin(), tracks.end(), s.track) -
                                         tracks.begin());
    const double y =
        rows_y + static_cast<double>(row) * kRowHeight + (kRowHeight - kRectHeight) / 2.0;
    const double x = x_of(s.start_ns);
    const double w = std::max(kMinRectWidth, x_of(std::max(s.start_ns, s.end_ns)) - x);
    const std::string fill =
        s.busy ? std::string(colour_of(s.name)) : std::string("url(#wait)\" stroke=\"#b0b0b0");
    fmt::format_to(put,
                   "<rect class=\"span\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" "
                   "height=\"{}\" fill=\"{}\"><title>{}</title></rect>\n",
                   x, y, w, kRectHeight, fill, xml_escape(hover_text(s)));
  }

  // Time axis in seconds: a line, ~kMaxTicks ticks at 1, 2 or 5 x 10^k s, and their labels.
  fmt::format_to(put, "<path d=\"M{:.2f},{:.1f}H{:.2f}\" stroke=\"#333333\"/>\n", plot_x, axis_y,
                 plot_x + plot_w);
  const double s0 = static_cast<double>(t0) / 1e9, s1 = static_cast<double>(t1) / 1e9;
  const double raw = (s1 - s0) / kMaxTicks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = mag * (raw <= mag ? 1 : raw <= 2 * mag ? 2 : raw <= 5 * mag ? 5 : 10);
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  for (auto k = static_cast<int64_t>(std::ceil(s0 / step - 1e-9)); k * step <= s1 + step * 1e-9;
       ++k) {
    const double x = plot_x + (k * step - s0) * 1e9 * px_per_ns;
    fmt::format_to(put,
                   "<path d=\"M{0:.2f},{1:.1f}v5\" stroke=\"#333333\"/><text x=\"{0:.2f}\" "
                   "y=\"{2:.1f}\" text-anchor=\"middle\">{3:.{4}f}</text>\n",
                   x, axis_y, axis_y + 18, k * step, decimals);
  }
  fmt::format_to(put, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">time (s)</text>\n",
                 label_width - 8, axis_y + 18);

  // Legend.
  for (const LegendEntry& e : legend) {
    fmt::format_to(
        put,
        "<rect class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" "
        "height=\"12\" fill=\"{}\" stroke=\"#b0b0b0\"/><text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        e.x, e.y - 10, e.busy ? std::string(colour_of(e.name)) : "url(#wait)", e.x + 16, e.y,
        xml_escape(e.name));
  }
  if (spans.empty()) {
    fmt::format_to(put, "<text x=\"10\" y=\"{:.1f}\">no spans</text>\n", axis_y + 40);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace zkpipe::pipeline

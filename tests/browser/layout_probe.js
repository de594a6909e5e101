// The layout as Chromium drew it, measured inside the page: the browser
// tests put this script at the end of a copy of the page (render_probed in
// chromium.sh), and --dump-dom serialises what it writes into a hidden
// pre element, #layout-probe. Geometry only, never a clock:
//   data-texts     labels measured (every non-empty text of every chart)
//   data-problems  how many of the lines below there are, each one of
//     overlap: "a" / "b" in #svg      two labels whose boxes overlap
//     cut: "a" in #svg                a label outside its chart or the page
//     on a bar: "a"                   a label over a bar of the histogram
//     thin bar: N attempts, H px      a bar of jobs under 3.5 px tall
//   data-axis-end-us     the timeline's last tick (the story's end)
//   data-axis-end-right  "yes" when it is drawn at the lanes' right edge
//   data-breaks          idle stretches drawn narrow on the timeline
//   data-kill-to-redelivery-px  px from the first kill to the first
//                        redelivery arrow's end, when the page has both
(function () {
  var problems = [];
  var texts = 0;
  var out = {};
  function box(el) { return el.getBoundingClientRect(); }
  function words(el) { return (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 70); }
  function where(svg) { return svg.id ? '#' + svg.id : (svg.getAttribute('class') || 'svg') + ' ' + (svg.getAttribute('data-tool') || svg.getAttribute('aria-label') || ''); }
  function overlap(a, b, dx, dy) {
    return Math.min(a.right, b.right) - Math.max(a.left, b.left) > dx &&
           Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > dy;
  }
  var pageRight = document.documentElement.clientWidth;
  document.querySelectorAll('svg').forEach(function (svg) {
    var frame = box(svg);
    if (frame.width < 40) return;  // a legend's swatch
    var labels = [];
    svg.querySelectorAll('text').forEach(function (t) {
      if (!words(t)) return;
      var r = box(t);
      if (r.width === 0 && r.height === 0) return;  // not displayed (a closed <details>)
      labels.push({ el: t, r: r });
    });
    texts += labels.length;
    labels.forEach(function (a) {
      var r = a.r;
      if (r.left < frame.left - 0.5 || r.right > frame.right + 0.5 || r.top < frame.top - 0.5 ||
          r.bottom > frame.bottom + 0.5 || r.left < -0.5 || r.right > pageRight + 0.5)
        problems.push('cut: "' + words(a.el) + '" in ' + where(svg));
    });
    // Boxes are the font's full height (about 14 px for 12 px text): rows
    // 14 px apart touch without overlapping.
    for (var i = 0; i < labels.length; ++i)
      for (var j = i + 1; j < labels.length; ++j)
        if (overlap(labels[i].r, labels[j].r, 1, 2))
          problems.push('overlap: "' + words(labels[i].el) + '" / "' + words(labels[j].el) + '" in ' + where(svg));
  });
  var attempts = document.getElementById('attempts');
  if (attempts) {
    var bars = attempts.querySelectorAll('rect.bar');
    attempts.querySelectorAll('text').forEach(function (t) {
      bars.forEach(function (b) {
        if (overlap(box(t), box(b), 0.5, 0.5)) problems.push('on a bar: "' + words(t) + '"');
      });
    });
    bars.forEach(function (b) {
      if (+b.getAttribute('data-jobs') > 0 && box(b).height < 3.5)
        problems.push('thin bar: ' + b.getAttribute('data-attempts') + ' attempts, ' + box(b).height.toFixed(1) + ' px');
    });
  }
  var timeline = document.getElementById('timeline');
  var axisEnd = document.querySelector('#time-axis text.axis-end');
  var endLine = document.querySelector('#time-axis line.axis-end-line');
  var lane = document.querySelector('#lane-backgrounds rect');
  if (timeline && axisEnd && endLine && lane) {
    out['axis-end-us'] = axisEnd.getAttribute('data-us');
    out['axis-end-right'] = Math.abs(box(endLine).left - box(lane).right) < 1.5 ? 'yes' : 'no';
    out['breaks'] = String(timeline.querySelectorAll('g.time-break').length);
    var kill = timeline.querySelector('g.kill, g.crash');
    var arrow = timeline.querySelector('path.redelivery');
    if (kill && arrow) out['kill-to-redelivery-px'] = String(Math.round(box(arrow).right - box(kill).left));
  }
  var pre = document.createElement('pre');
  pre.id = 'layout-probe';
  pre.hidden = true;
  pre.setAttribute('data-texts', String(texts));
  pre.setAttribute('data-problems', String(problems.length));
  Object.keys(out).forEach(function (k) { pre.setAttribute('data-' + k, out[k]); });
  pre.textContent = problems.join('\n');
  document.body.appendChild(pre);
})();

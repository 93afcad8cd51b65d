// Plots click through to the submission detail: a point's customdata ends with its submission id.
(function () {
  function hook(el) {
    if (el.__fbHooked || typeof el.on !== 'function') return;
    el.__fbHooked = true;
    el.on('plotly_click', function (ev) {
      var p = ev && ev.points && ev.points[0];
      var cd = p && p.customdata;
      var sid = Array.isArray(cd) ? cd[cd.length - 1] : cd;
      if (typeof sid === 'string' && /^[0-9a-f]{6,64}$/.test(sid)) {
        window.location.search = '?submission=' + sid;
      }
    });
  }
  new MutationObserver(function () {
    document.querySelectorAll('.js-plotly-plot').forEach(hook);
  }).observe(document.documentElement, {childList: true, subtree: true});
})();

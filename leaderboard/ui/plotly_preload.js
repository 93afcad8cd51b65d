// Imports Gradio's Plotly chunk (__PLOTLY_ASSET__, filled in by figbench_leaderboard.assets) once the overview
// is shown and the page is idle, so the Plots tab does not wait for 4 MB of JavaScript to be fetched and compiled.
(function () {
  function later() {
    if (!document.querySelector('#overview-table td')) { setTimeout(later, 500); return; }
    (window.requestIdleCallback || setTimeout)(function () {
      import(__PLOTLY_ASSET__).then(function () { window.__fbPlotlyReady = true; }, function () {});
    }, {timeout: 4000});
  }
  setTimeout(later, 500);   // Gradio adds this script after the page's load event
})();

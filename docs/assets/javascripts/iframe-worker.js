// Search on a site opened from the files (file://), with nothing from the network.
//
// Material's search runs lunr in a web worker, and Chromium refuses to start a
// worker from a file:// page. The offline plugin adds a polyfill for that from a
// CDN (unpkg.com/iframe-worker) unless the site lists one whose URL names
// "iframe-worker": this is that polyfill, shipped with the site. Served over
// http(s) (GitHub Pages) it does nothing and the real Worker runs. Under file://
// the worker's script runs in a hidden same-origin iframe, and messages go
// through the iframe's postMessage and message events, as they would to a worker.
(function () {
  "use strict";
  if (location.protocol !== "file:") return;

  function IframeWorker(url) {
    var outer = this;
    var base = new URL(url, document.baseURI).href;  // the worker's own URL: its scripts' base
    var frame = document.createElement("iframe");
    var pending = [];
    var ready = false;
    this.onmessage = null;
    this.onerror = null;
    this._listeners = [];
    frame.setAttribute("aria-hidden", "true");
    frame.style.display = "none";
    document.documentElement.appendChild(frame);
    var inner = frame.contentWindow;

    inner.postMessage = function (data) {  // the worker's postMessage: to the page
      setTimeout(function () { outer._deliver(data); }, 0);
    };
    inner.importScripts = function () {  // awaited by the search worker (languages other than English)
      return Promise.all(Array.prototype.map.call(arguments, function (src) { return load(src); }));
    };
    function load(src) {
      return new Promise(function (resolve, reject) {
        var script = inner.document.createElement("script");
        script.src = new URL(src, base).href;
        script.onload = resolve;
        script.onerror = function () { reject(new Error("could not load " + src)); };
        inner.document.head.appendChild(script);
      });
    }
    load(base).then(function () {
      ready = true;
      pending.splice(0).forEach(function (data) { outer.postMessage(data); });
    });

    this.postMessage = function (data) {  // the page's postMessage: to the worker
      if (!ready) { pending.push(data); return; }
      inner.dispatchEvent(new inner.MessageEvent("message", { data: data }));
    };
    this.terminate = function () { frame.remove(); };
  }
  IframeWorker.prototype.addEventListener = function (type, listener) {
    if (type === "message") this._listeners.push(listener);
  };
  IframeWorker.prototype.removeEventListener = function (type, listener) {
    this._listeners = this._listeners.filter(function (each) { return each !== listener; });
  };
  IframeWorker.prototype._deliver = function (data) {
    var event = new MessageEvent("message", { data: data });
    if (this.onmessage) this.onmessage(event);
    this._listeners.forEach(function (listener) { listener(event); });
  };

  window.Worker = IframeWorker;
})();

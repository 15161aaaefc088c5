// A small slippy map of our own: Web Mercator raster tiles from a URL template
// ({z}/{x}/{y}), dragged and zoomed by mouse, touch and keyboard, with pins. Without
// tiles (offline, or none configured) the pins sit on a plain grid.
import {btn, h} from "./dom.js";

const TILE = 256;

export function project(lat, lon, zoom) {
  const scale = TILE * 2 ** zoom;
  const sin = Math.sin((Math.max(-85.05, Math.min(85.05, lat)) * Math.PI) / 180);
  return {x: ((lon + 180) / 360) * scale, y: (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * scale};
}

export function unproject(x, y, zoom) {
  const scale = TILE * 2 ** zoom;
  const lon = (x / scale) * 360 - 180;
  const n = Math.PI - (2 * Math.PI * y) / scale;
  return {lat: (180 / Math.PI) * Math.atan(Math.sinh(n)), lon: ((((lon + 180) % 360) + 360) % 360) - 180};
}

/** Positions an element through the CSS object model (the CSP allows no style attributes). */
function place(element, x, y) {
  element.style.left = `${Math.round(x)}px`;
  element.style.top = `${Math.round(y)}px`;
  return element;
}

export class SlippyMap {
  constructor({tileURL, attribution, center, zoom = 13, label = "Map", onMove, onPick}) {
    this.tileURL = tileURL;
    this.center = {...center};
    this.zoom = zoom;
    this.onMove = onMove;
    this.onPick = onPick;
    this.pins = [];
    this.tiles = h("div", {class: "map-tiles", "aria-hidden": "true"});
    this.pinLayer = h("div", {class: "map-pins"});
    this.marker = null;
    const zoomIn = btn({class: "map-zoom", "aria-label": "Zoom in", onclick: () => this.zoomBy(1)}, "+");
    const zoomOut = btn({class: "map-zoom", "aria-label": "Zoom out", onclick: () => this.zoomBy(-1)}, "−");
    this.element = h("div", {class: "map", role: "application", "aria-label": `${label}: arrow keys move, + and − zoom${onPick ? ", Enter picks the centre" : ""}`, tabindex: "0"},
      this.tiles, this.pinLayer, h("div", {class: "map-crosshair", "aria-hidden": "true"}),
      h("div", {class: "map-controls"}, zoomIn, zoomOut),
      tileURL ? h("p", {class: "map-attribution"}, attribution || "") : null);
    this.listen();
    new ResizeObserver(() => this.render()).observe(this.element);
  }

  get size() { return {width: this.element.clientWidth || 320, height: this.element.clientHeight || 320}; }

  /** The viewport as the API's in-box parameters. */
  bounds() {
    const {width, height} = this.size;
    const c = project(this.center.lat, this.center.lon, this.zoom);
    const nw = unproject(c.x - width / 2, c.y - height / 2, this.zoom);
    const se = unproject(c.x + width / 2, c.y + height / 2, this.zoom);
    return {min_lat: se.lat.toFixed(5), min_lon: nw.lon.toFixed(5), max_lat: nw.lat.toFixed(5), max_lon: se.lon.toFixed(5)};
  }

  setCenter(center, zoom = this.zoom) {
    this.center = {lat: center.lat, lon: center.lon};
    this.zoom = Math.max(2, Math.min(18, zoom));
    this.render();
    this.moved();
  }

  zoomBy(step) { this.setCenter(this.center, this.zoom + step); }

  /** Pins: [{id, lat, lon, label, onclick}]. */
  setPins(pins) { this.pins = pins; this.render(); }

  /** A marker for a picked place (null: none). */
  setMarker(position) { this.marker = position; this.render(); }

  moved() {
    clearTimeout(this.moveTimer);
    this.moveTimer = setTimeout(() => this.onMove?.(this.bounds(), this.center), 250);
  }

  listen() {
    const pointers = new Map();
    let start = null;
    let pinch = null;
    const el = this.element;
    el.addEventListener("pointerdown", (e) => {
      if (e.target.closest("button")) return;
      el.setPointerCapture(e.pointerId);
      pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
      start = {x: e.clientX, y: e.clientY, center: project(this.center.lat, this.center.lon, this.zoom), moved: false};
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = {distance: Math.hypot(a.x - b.x, a.y - b.y), zoom: this.zoom};
      }
    });
    el.addEventListener("pointermove", (e) => {
      if (!pointers.has(e.pointerId) || !start) return;
      pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
      if (pinch && pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const zoom = Math.round(pinch.zoom + Math.log2(Math.hypot(a.x - b.x, a.y - b.y) / pinch.distance));
        if (zoom !== this.zoom) { this.zoom = Math.max(2, Math.min(18, zoom)); start.center = project(this.center.lat, this.center.lon, this.zoom); start.x = e.clientX; start.y = e.clientY; this.render(); }
        start.moved = true;
        return;
      }
      const dx = e.clientX - start.x;
      const dy = e.clientY - start.y;
      if (Math.abs(dx) + Math.abs(dy) > 4) start.moved = true;
      const c = unproject(start.center.x - dx, start.center.y - dy, this.zoom);
      this.center = c;
      this.render();
    });
    const end = (e) => {
      if (!pointers.delete(e.pointerId)) return;
      if (pointers.size < 2) pinch = null;
      if (pointers.size === 0 && start) {
        if (start.moved) this.moved();
        else if (this.onPick && e.type === "pointerup") {
          const rect = el.getBoundingClientRect();
          const c = project(this.center.lat, this.center.lon, this.zoom);
          const {width, height} = this.size;
          this.pick(unproject(c.x + (e.clientX - rect.left) - width / 2, c.y + (e.clientY - rect.top) - height / 2, this.zoom));
        }
        start = null;
      }
    };
    el.addEventListener("pointerup", end);
    el.addEventListener("pointercancel", end);
    el.addEventListener("wheel", (e) => { e.preventDefault(); this.zoomBy(e.deltaY < 0 ? 1 : -1); }, {passive: false});
    el.addEventListener("keydown", (e) => {
      const step = 64;
      const c = project(this.center.lat, this.center.lon, this.zoom);
      const moves = {ArrowUp: [0, -step], ArrowDown: [0, step], ArrowLeft: [-step, 0], ArrowRight: [step, 0]};
      if (moves[e.key]) { e.preventDefault(); this.setCenter(unproject(c.x + moves[e.key][0], c.y + moves[e.key][1], this.zoom)); }
      else if (e.key === "+" || e.key === "=") this.zoomBy(1);
      else if (e.key === "-") this.zoomBy(-1);
      else if (e.key === "Enter" && this.onPick && e.target === el) this.pick({...this.center});
    });
  }

  pick(position) {
    this.setMarker(position);
    this.onPick?.(position);
  }

  render() {
    const {width, height} = this.size;
    const c = project(this.center.lat, this.center.lon, this.zoom);
    const left = c.x - width / 2;
    const top = c.y - height / 2;
    if (this.tileURL) {
      const count = 2 ** this.zoom;
      const images = [];
      for (let ty = Math.floor(top / TILE); ty <= Math.floor((top + height) / TILE); ty++) {
        if (ty < 0 || ty >= count) continue;
        for (let tx = Math.floor(left / TILE); tx <= Math.floor((left + width) / TILE); tx++) {
          const x = ((tx % count) + count) % count;
          const src = this.tileURL.replace("{z}", this.zoom).replace("{x}", x).replace("{y}", ty);
          const img = place(h("img", {src, alt: "", width: TILE, height: TILE, draggable: "false"}), tx * TILE - left, ty * TILE - top);
          img.addEventListener("error", () => img.remove());
          images.push(img);
        }
      }
      this.tiles.replaceChildren(...images);
    }
    // The plain grid moves with the map, so dragging shows even without tiles.
    this.element.style.backgroundPosition = `${-Math.round(left) % 64}px ${-Math.round(top) % 64}px`;
    const at = (element, lat, lon) => {
      const p = project(lat, lon, this.zoom);
      return place(element, p.x - left, p.y - top);
    };
    // Pins are kept from one render to the next (only moved), so a focused pin keeps focus.
    const kept = new Map([...this.pinLayer.querySelectorAll(".map-pin")].map((b) => [b.dataset.id, b]));
    const pins = this.pins.map((pin) => {
      let button = kept.get(pin.id);
      if (!button || button.getAttribute("aria-label") !== pin.label) {
        button = btn({class: "map-pin", "aria-label": pin.label, title: pin.label, dataset: {id: pin.id}, onclick: pin.onclick}, pin.text ?? "");
      }
      return at(button, pin.lat, pin.lon);
    });
    if (this.marker) pins.push(at(h("span", {class: "map-marker", "aria-hidden": "true"}), this.marker.lat, this.marker.lon));
    const focused = this.pinLayer.contains(document.activeElement) ? document.activeElement : null;
    this.pinLayer.replaceChildren(...pins);
    if (focused && pins.includes(focused) && document.activeElement !== focused) focused.focus({preventScroll: true});
  }
}

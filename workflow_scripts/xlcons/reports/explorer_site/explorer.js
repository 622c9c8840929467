// The xlcons item explorer: plain JavaScript, no build step, nothing fetched from the network.
// Data arrive as script files that call window.XLCONS.overview(...) and window.XLCONS.add(...)
// (a <script> tag loads from file://, where fetching a local file is refused). Every text of a
// model, a prompt or an evaluator is put on the page with textContent, never as HTML.
"use strict";

(function () {
  // Every data file calls one of these: the overview's index, a heatmap, a part of an answer set.
  // `loaded` holds what has arrived by key; `waiting` the promises of what is on its way.
  const state = { overview: null, loaded: {}, waiting: {}, files: {} };

  function arrived(key, payload) {
    state.loaded[key] = payload;
    (state.waiting[key] || []).forEach((waiter) => waiter.resolve(payload));
    delete state.waiting[key];
  }

  const XLCONS = {
    overview(payload) {
      state.overview = payload;
    },
    heatmap(payload) {
      arrived(heatmapKey(payload.dataset, payload.index), payload);
    },
    add(payload) {
      arrived(partKey(payload.dataset, payload.model, payload.lang, payload.part), payload);
    },
  };
  window.XLCONS = XLCONS;

  // -- helpers -------------------------------------------------------------------------------

  function fileKey(dataset, model, lang) {
    return [dataset, model, lang].join("\u0000");
  }

  function partKey(dataset, model, lang, part) {
    return ["items", dataset, model, lang, part].join("\u0000");
  }

  function heatmapKey(dataset, index) {
    return ["heatmap", dataset, index].join("\u0000");
  }

  // Loads one data file with a <script> tag (fetching a local file is refused under file://);
  // resolves with what the file registered under `key`.
  function load(key, parts) {
    if (key in state.loaded) return Promise.resolve(state.loaded[key]);
    return new Promise((resolve, reject) => {
      const first = !state.waiting[key];
      (state.waiting[key] = state.waiting[key] || []).push({ resolve, reject });
      if (!first) return;
      const tag = document.createElement("script");
      tag.src = parts.map(encodeURIComponent).join("/");
      tag.onerror = () => {
        (state.waiting[key] || []).forEach((waiter) => waiter.reject(new Error("could not load " + parts.join("/"))));
        delete state.waiting[key];
      };
      document.body.appendChild(tag);
    });
  }

  function el(tag, options, children) {
    const node = document.createElement(tag);
    const opts = options || {};
    if (opts.text !== undefined && opts.text !== null) node.textContent = String(opts.text);
    if (opts.cls) node.className = opts.cls;
    if (opts.href) node.setAttribute("href", opts.href);
    if (opts.title) node.setAttribute("title", opts.title);
    if (opts.attrs) Object.entries(opts.attrs).forEach(([k, v]) => node.setAttribute(k, String(v)));
    (children || []).forEach((child) => child && node.appendChild(child));
    return node;
  }

  function route(...parts) {
    return "#" + parts.map((part) => encodeURIComponent(part)).join("/");
  }

  function fmt(value, digits) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(digits || 3);
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  function splitKey(key) {
    const [evaluator, translator, metric] = key.split("|");
    return { evaluator, translator, metric };
  }

  function keyLabel(key) {
    const k = splitKey(key);
    return k.evaluator + " · " + k.metric + (k.translator ? " (via " + k.translator + ")" : "");
  }

  function partsOf(dataset, model, lang) {
    const files = (state.overview && state.overview.files) || {};
    return (files[dataset] && files[dataset][model] && files[dataset][model][lang]) || 0;
  }

  function hasFile(dataset, model, lang) {
    return partsOf(dataset, model, lang) > 0;
  }

  function languagesOf(dataset, model) {
    const files = (state.overview && state.overview.files) || {};
    return Object.keys((files[dataset] && files[dataset][model]) || {}).sort();
  }

  // Every item of one answer set, from its parts (an answer set larger than a few MB is split).
  function loadFile(dataset, model, lang) {
    const key = fileKey(dataset, model, lang);
    if (state.files[key]) return Promise.resolve(state.files[key]);
    const parts = partsOf(dataset, model, lang);
    if (!parts) return Promise.reject(new Error("no item file for " + [dataset, model, lang].join(" / ")));
    const loads = [];
    for (let part = 0; part < parts; part++) {
      const name = part === 0 ? lang + ".js" : lang + "." + part + ".js";
      loads.push(load(partKey(dataset, model, lang, part), ["data", "items", dataset, model, name]));
    }
    return Promise.all(loads).then((loaded) => {
      const file = { dataset, model, lang, metrics: loaded[0].metrics, items: loaded.flatMap((part) => part.items) };
      state.files[key] = file;
      return file;
    });
  }

  function loadHeatmap(entry) {
    return load(heatmapKey(entry.dataset, entry.index), entry.file.split("/"));
  }

  // The metrics of the same evaluator and translator as `key` that the items of a file have.
  function siblingMetrics(file, key) {
    const k = splitKey(key);
    const prefix = k.evaluator + "|" + k.translator + "|";
    return file.metrics.filter((name) => name.startsWith(prefix));
  }

  function primaryMetric(file, key) {
    if (file.metrics.includes(key)) return key;
    return siblingMetrics(file, key)[0] || null;
  }

  // An item's status under a metric: its answer's (answered, no answer, error), or why it is excluded.
  function itemStatus(item, key) {
    const score = key ? item.scores[key] : null;
    if (item.answer_status === "error") return "error";
    if (score && score[1] !== "ok") {
      if (score[1] === "error" || score[1] === "prompt_too_long") return "error";
      return "excluded: " + score[1];
    }
    return item.answer_status || "answered";
  }

  function statusClass(status) {
    return "status-" + (status.startsWith("excluded") ? "excluded" : status.replace(/ /g, "-"));
  }

  function scoreOf(item, key) {
    const score = key ? item.scores[key] : null;
    return score && score[1] === "ok" && typeof score[0] === "number" ? score[0] : null;
  }

  function table(headers, rows) {
    const head = el("tr", {}, headers.map((h) => el("th", { text: h })));
    return el("table", {}, [el("thead", {}, [head]), el("tbody", {}, rows)]);
  }

  function rowsTable(rows) {
    const columns = [];
    rows.forEach((row) => Object.keys(row).forEach((c) => columns.includes(c) || columns.push(c)));
    return table(
      columns,
      rows.map((row) => el("tr", {}, columns.map((c) => el("td", {}, [el("div", { cls: "cell-text", text: fmt(row[c]) })]))))
    );
  }

  function textBlock(title, text, extra) {
    return el("section", {}, [el("h3", { text: title }), el("div", { cls: "text", text: text === null || text === undefined ? "–" : text }), extra]);
  }

  function showError(view, error) {
    view.appendChild(el("p", { cls: "error-message", text: String(error && error.message ? error.message : error) }));
  }

  // -- views ---------------------------------------------------------------------------------

  // The colour of a value on its heatmap's scale: viridis, as the report's figures, over the
  // metric's declared range (xlcons.reports.figure_style), or the heatmap's own minimum and
  // maximum where the metric has none (a count, tokens per prompt); outside it, the end colour.
  const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

  function colour(value, low, high) {
    const t = high > low ? Math.min(1, Math.max(0, (value - low) / (high - low))) : 0.5;
    const at = t * (VIRIDIS.length - 1);
    const i = Math.min(VIRIDIS.length - 2, Math.floor(at));
    const f = at - i;
    const rgb = VIRIDIS[i].map((c, k) => Math.round(c + f * (VIRIDIS[i + 1][k] - c)));
    return { background: "rgb(" + rgb.join(",") + ")", dark: t < 0.6 };
  }

  function scaleOf(heatmap) {
    if (heatmap.range) return { low: heatmap.range[0], high: heatmap.range[1], declared: true };
    let low = Infinity;
    let high = -Infinity;
    heatmap.cells.value.forEach((v) => {
      if (typeof v === "number") {
        low = Math.min(low, v);
        high = Math.max(high, v);
      }
    });
    return { low, high, declared: false };
  }

  function cellTitle(heatmap, index) {
    const cells = heatmap.cells;
    const parts = ["value " + fmt(cells.value[index], 4)];
    if (cells.ci_low[index] !== null && cells.ci_high[index] !== null) {
      parts.push(Math.round((cells.ci_level[index] || 0.95) * 100) + "% CI " + fmt(cells.ci_low[index], 4) + " – " + fmt(cells.ci_high[index], 4));
    }
    parts.push("items " + cells.n_items[index] + ", excluded " + cells.n_excluded[index]);
    if (cells.excluded_reasons[index]) parts.push("excluded: " + cells.excluded_reasons[index]);
    if (cells.note[index]) parts.push(cells.note[index]);
    return parts.join("\n");
  }

  // One heatmap as a table: a row per model, a column per language. The tooltips (interval,
  // counts, reasons) are made when the pointer first reaches a cell, not for every cell up front.
  function heatmapTable(heatmap) {
    const scale = scaleOf(heatmap);
    const width = heatmap.langs.length;
    const head = el("tr", {}, [el("th", { text: "model" }), ...heatmap.langs.map((lang) => el("th", { text: lang }))]);
    const body = document.createElement("tbody");
    heatmap.models.forEach((model, row) => {
      const tr = document.createElement("tr");
      tr.appendChild(el("th", { text: model }));
      heatmap.langs.forEach((lang, column) => {
        const index = row * width + column;
        const td = document.createElement("td");
        if (!heatmap.present[index]) {
          td.className = "empty";
          tr.appendChild(td);
          return;
        }
        const value = heatmap.cells.value[index];
        td.dataset.model = model;
        td.dataset.lang = lang;
        td.dataset.metric = heatmap.key;
        td.dataset.value = value === null ? "" : String(value);
        td.dataset.index = String(index);
        const link = hasFile(heatmap.dataset, model, lang) ? document.createElement("a") : document.createElement("span");
        if (link.tagName === "A") link.setAttribute("href", route("cell", heatmap.dataset, model, lang, heatmap.key));
        link.textContent = fmt(value);
        td.appendChild(link);
        if (value === null) td.className = "empty";
        else {
          const c = colour(value, scale.low, scale.high);
          td.style.backgroundColor = c.background;
          if (c.dark) td.className = "dark";
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    const tableNode = el("table", { cls: "heatmap" }, [el("thead", {}, [head]), body]);
    tableNode.addEventListener("mouseover", (event) => {
      const td = event.target.closest("td[data-index]");
      if (td && !td.title) td.title = cellTitle(heatmap, Number(td.dataset.index));
    });
    const scaleText = scale.declared ? "colour scale " + fmt(scale.low) + " – " + fmt(scale.high) + " (the metric's range)" : "colour scale " + fmt(scale.low) + " – " + fmt(scale.high) + " (lowest to highest here)";
    return [tableNode, el("p", { cls: "meta", text: scaleText })];
  }

  function renderOverview(view, name) {
    const datasets = state.overview.datasets;
    view.appendChild(el("h2", { text: "Overview" }));
    view.appendChild(
      el("p", { cls: "meta", text: "One heatmap per metric of the results table (models × languages). Hover a cell for its interval and counts; click it for its items." })
    );
    if (!datasets.length) {
      view.appendChild(el("p", { text: "The results table has no rows." }));
      return Promise.resolve();
    }
    const dataset = datasets.find((d) => d.name === name) || datasets[0];
    if (datasets.length > 1) {
      view.appendChild(
        el("p", { cls: "links", attrs: { id: "datasets" } }, [
          el("span", { text: "Data sets: " }),
          ...datasets.map((d) => el(d.name === dataset.name ? "strong" : "a", { href: d.name === dataset.name ? null : route("overview", d.name), text: d.name })),
        ])
      );
    }
    view.appendChild(el("h2", { text: "Data set " + dataset.name, attrs: { "data-dataset": dataset.name } }));
    const blocks = dataset.heatmaps.map((entry) => {
      const block = el("div", { cls: "heatmap-block", attrs: { "data-heatmap": entry.key, "data-dataset": entry.dataset } }, [
        el("h3", { text: keyLabel(entry.key) + (entry.kind !== "mean" ? " [" + entry.kind + "]" : "") }),
      ]);
      view.appendChild(block);
      return block;
    });
    // One heatmap at a time, yielding to the browser in between: the first is on screen and the
    // page answers clicks while the others are drawn (a data set at MultiQ scale has 40,000 cells).
    return Promise.all(dataset.heatmaps.map(loadHeatmap)).then(
      (heatmaps) =>
        new Promise((resolve) => {
          let i = 0;
          function next() {
            if (i === heatmaps.length || !blocks[i].isConnected) return resolve();
            const heatmap = heatmaps[i];
            heatmapTable(heatmap).forEach((node) => blocks[i].appendChild(node));
            if (heatmap.models.length > 1) {
              blocks[i].appendChild(el("a", { href: route("compare", heatmap.dataset, heatmap.langs[0], heatmap.key, heatmap.models[0], heatmap.models[1]), text: "compare two models" }));
            }
            if (i === 0) painted(view, "data-first-painted-ms");
            i += 1;
            setTimeout(next, 0);
          }
          next();
        })
    );
  }

  function renderCell(view, dataset, model, lang, key) {
    view.appendChild(el("h2", { text: [dataset, model, lang].join(" / ") + " — " + keyLabel(key) }));
    return loadFile(dataset, model, lang).then((file) => {
      const metric = primaryMetric(file, key);
      const siblings = siblingMetrics(file, key);
      if (metric !== key) {
        view.appendChild(el("p", { cls: "meta", text: key.split("|")[2] + " has no per-item value (a derived or corpus metric); its items are shown with " + (metric ? keyLabel(metric) : "no item score") + "." }));
      }
      const statuses = Array.from(new Set(file.items.map((item) => itemStatus(item, metric)))).sort();
      const search = el("input", { attrs: { type: "search", placeholder: "search prompt, answer, translation", id: "search" } });
      const status = el("select", { attrs: { id: "status" } }, [el("option", { text: "all statuses", attrs: { value: "" } }), ...statuses.map((s) => el("option", { text: s, attrs: { value: s } }))]);
      const sort = el("select", { attrs: { id: "sort" } }, [
        el("option", { text: "score, lowest first", attrs: { value: "asc" } }),
        el("option", { text: "score, highest first", attrs: { value: "desc" } }),
        el("option", { text: "item id", attrs: { value: "id" } }),
      ]);
      const minimum = el("input", { attrs: { type: "number", step: "any", placeholder: "min score", id: "min-score" } });
      const maximum = el("input", { attrs: { type: "number", step: "any", placeholder: "max score", id: "max-score" } });
      // The answer's translation quality (the QE evaluator's item score), where the run has one.
      const qeKey = file.metrics.find((name) => splitKey(name).evaluator === "translation_qe" && splitKey(name).metric === "qe") || null;
      const qeMinimum = el("input", { attrs: { type: "number", step: "any", placeholder: "min QE", id: "min-qe" } });
      const qeMaximum = el("input", { attrs: { type: "number", step: "any", placeholder: "max QE", id: "max-qe" } });
      const counter = el("span", { cls: "meta", attrs: { id: "count" } });
      view.appendChild(el("div", { cls: "controls" }, [search, status, sort, minimum, maximum, ...(qeKey ? [qeMinimum, qeMaximum] : []), counter]));
      const others = Object.keys(state.overview.files[dataset] || {}).filter((m) => m !== model && hasFile(dataset, m, lang));
      if (others.length) {
        view.appendChild(el("p", { cls: "links" }, [el("span", { text: "Compare with: " }), ...others.map((m) => el("a", { href: route("compare", dataset, lang, key, model, m), text: m }))]));
      }
      const body = el("tbody", {});
      const qeColumn = qeKey && !siblings.includes(qeKey);
      const headers = ["item", "status", ...siblings.map((m) => splitKey(m).metric), ...(qeColumn ? ["QE"] : []), "prompt", "answer"];
      view.appendChild(el("table", { attrs: { id: "items" } }, [el("thead", {}, [el("tr", {}, headers.map((h) => el("th", { text: h })))]), body]));
      function update() {
        const needle = search.value.trim().toLowerCase();
        const low = minimum.value === "" ? null : Number(minimum.value);
        const high = maximum.value === "" ? null : Number(maximum.value);
        const qeLow = qeMinimum.value === "" ? null : Number(qeMinimum.value);
        const qeHigh = qeMaximum.value === "" ? null : Number(qeMaximum.value);
        let items = file.items.filter((item) => {
          const s = itemStatus(item, metric);
          if (status.value && s !== status.value) return false;
          const score = scoreOf(item, metric);
          if (low !== null && (score === null || score < low)) return false;
          if (high !== null && (score === null || score > high)) return false;
          const qe = scoreOf(item, qeKey);
          if (qeLow !== null && (qe === null || qe < qeLow)) return false;
          if (qeHigh !== null && (qe === null || qe > qeHigh)) return false;
          if (!needle) return true;
          const texts = [item.id, item.prompt, item.prompt_en, item.answer, item.translation && item.translation.text];
          return texts.some((t) => t && String(t).toLowerCase().includes(needle));
        });
        items = items.slice().sort((a, b) => {
          if (sort.value === "id") return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
          const x = scoreOf(a, metric);
          const y = scoreOf(b, metric);
          if (x === null && y === null) return a.id < b.id ? -1 : 1;
          if (x === null) return 1;
          if (y === null) return -1;
          return sort.value === "asc" ? x - y : y - x;
        });
        body.replaceChildren(
          ...items.map((item) => {
            const s = itemStatus(item, metric);
            return el("tr", { attrs: { "data-item": item.id, "data-status": s } }, [
              el("td", {}, [el("a", { href: route("item", dataset, model, lang, item.id), text: item.id })]),
              el("td", { cls: statusClass(s), text: s }),
              ...siblings.map((m) => el("td", { text: fmt(scoreOf(item, m)) })),
              ...(qeColumn ? [el("td", { cls: "qe", text: fmt(scoreOf(item, qeKey)) })] : []),
              el("td", {}, [el("div", { cls: "cell-text", text: item.prompt })]),
              el("td", {}, [el("div", { cls: "cell-text", text: item.answer })]),
            ]);
          })
        );
        counter.textContent = items.length + " of " + file.items.length + " items";
      }
      [search, minimum, maximum, qeMinimum, qeMaximum].forEach((input) => input.addEventListener("input", update));
      [status, sort].forEach((input) => input.addEventListener("change", update));
      update();
    });
  }

  // The verdict-like fields of the evaluators' one-row outputs (a judge's verdict, language ID's
  // label and fidelity), for a line at the top of the item; every row is in full further down.
  const VERDICT_FIELDS = ["verdict", "fidelity", "label", "response_lang", "status"];

  function verdicts(item) {
    const found = [];
    Object.keys(item.details).sort().forEach((output) => {
      const details = item.details[output];
      if (details.rows.length !== 1) return;
      VERDICT_FIELDS.forEach((field) => {
        const value = details.rows[0][field];
        if (value !== undefined && value !== null) found.push(details.evaluator + " " + field + ": " + fmt(value));
      });
    });
    return found;
  }

  function renderItem(view, dataset, model, lang, id) {
    view.appendChild(el("h2", { text: [dataset, model, lang, id].join(" / ") }));
    return loadFile(dataset, model, lang).then((file) => {
      const item = file.items.find((candidate) => candidate.id === id);
      if (!item) throw new Error("no item " + id + " in " + [dataset, model, lang].join(" / "));
      const languages = languagesOf(dataset, model);
      view.appendChild(el("p", { cls: "links", attrs: { id: "other-languages" } }, [el("span", { text: "Same item in: " }), ...languages.filter((l) => l !== lang).map((l) => el("a", { href: route("item", dataset, model, l, id), text: l }))]));
      const models = Object.keys(state.overview.files[dataset] || {}).filter((m) => m !== model && hasFile(dataset, m, lang));
      if (models.length) {
        view.appendChild(el("p", { cls: "links" }, [el("span", { text: "Other models: " }), ...models.map((m) => el("a", { href: route("item", dataset, m, lang, id), text: m }))]));
      }
      const status = itemStatus(item, null);
      view.appendChild(el("p", {}, [el("span", { text: "Answer: " }), el("span", { cls: statusClass(status), text: status }), el("span", { cls: "meta", text: " finish reason " + fmt(item.finish_reason) + (item.error ? ", error: " + item.error : "") + (item.category ? ", category " + item.category : "") })]));
      const glance = verdicts(item);
      if (glance.length) view.appendChild(el("p", { attrs: { id: "verdicts" } }, [el("span", { text: "Verdicts: " }), ...glance.map((text) => el("span", { cls: "verdict", text }))]));
      view.appendChild(el("div", { cls: "pair" }, [textBlock("Prompt (" + lang + ")", item.prompt), textBlock("Prompt (English)", item.prompt_en)]));
      const translation = item.translation;
      view.appendChild(
        el("div", { cls: "pair", attrs: { id: "answers" } }, [
          textBlock("Answer (" + lang + ")", item.answer),
          textBlock("English translation", translation ? translation.text : null, translation ? el("p", { cls: "meta", text: "path " + translation.path + ", translator " + translation.translator }) : null),
        ])
      );
      if (item.references && item.references.length) {
        view.appendChild(el("h3", { text: "References" }));
        view.appendChild(el("ul", {}, item.references.map((r) => el("li", { text: r }))));
      }
      if (translation) {
        view.appendChild(el("h3", { text: "Language ID" }));
        view.appendChild(table(["detected source language", "LID label", "answer language"], [el("tr", {}, [el("td", { text: fmt(translation.source_lang_detected) }), el("td", { text: fmt(translation.lid_label) }), el("td", { text: fmt(translation.response_lang) })])]));
        view.appendChild(el("h3", { text: "Translated sentences" }));
        const hasQe = translation.sentences.some((s) => s.qe !== undefined);
        const headers = ["#", "source", "translation", "degenerate", "repaired"].concat(hasQe ? ["QE", "copy", "off target", "LID label"] : []);
        const rows = translation.sentences.map((s) =>
          el("tr", { attrs: { "data-sentence": s.sentence_index } }, [
            el("td", { text: s.sentence_index }),
            el("td", {}, [el("div", { cls: "cell-text", text: s.source })]),
            el("td", {}, [el("div", { cls: "cell-text", text: s.translation })]),
            el("td", { text: fmt(s.degenerate_reason) }),
            el("td", { text: fmt(s.repaired) }),
            ...(hasQe ? [el("td", { cls: "qe", text: fmt(s.qe) }), el("td", { text: fmt(s.copy) }), el("td", { text: fmt(s.off_target) }), el("td", { text: fmt(s.lid_label) })] : []),
          ])
        );
        const sentences = table(headers, rows);
        sentences.id = "sentences";
        view.appendChild(sentences);
      }
      if (item.other_translations && item.other_translations.length) {
        view.appendChild(el("h3", { text: "Other translators" }));
        const others = table(
          ["translator", "English translation", "scores"],
          item.other_translations.map((other) =>
            el("tr", { attrs: { "data-translator": other.translator } }, [
              el("td", { text: other.translator }),
              el("td", {}, [el("div", { cls: "cell-text", text: other.text })]),
              el("td", { text: Object.keys(item.scores).sort().filter((key) => splitKey(key).translator === other.translator).map((key) => splitKey(key).evaluator + " " + splitKey(key).metric + " " + fmt(item.scores[key][0], 4)).join("; ") || "–" }),
            ])
          )
        );
        others.id = "other-translations";
        view.appendChild(others);
      }
      view.appendChild(el("h3", { text: "Scores" }));
      const scores = table(
        ["metric", "value", "status"],
        Object.keys(item.scores).sort().map((key) => el("tr", { attrs: { "data-metric": key } }, [el("td", {}, [el("a", { href: route("cell", dataset, model, lang, key), text: keyLabel(key) })]), el("td", { text: fmt(item.scores[key][0], 4) }), el("td", { text: item.scores[key][1] })]))
      );
      scores.id = "scores";
      view.appendChild(scores);
      Object.keys(item.details).sort().forEach((output) => {
        const details = item.details[output];
        view.appendChild(el("h3", { text: details.evaluator + ": " + output }));
        const rows = rowsTable(details.rows);
        rows.setAttribute("data-output", output);
        view.appendChild(rows);
      });
    });
  }

  function renderCompare(view, params) {
    const files = state.overview.files;
    const datasets = Object.keys(files);
    let [dataset, lang, key, modelA, modelB] = params;
    dataset = dataset || datasets[0];
    view.appendChild(el("h2", { text: "Compare two models on the same items" }));
    if (!dataset) return Promise.resolve(view.appendChild(el("p", { text: "No item files." })));
    const models = Object.keys(files[dataset] || {});
    const langs = Array.from(new Set(models.flatMap((m) => languagesOf(dataset, m)))).sort();
    lang = lang || langs[0];
    const entry = state.overview.datasets.find((d) => d.name === dataset);
    const keys = Array.from(new Set((entry ? entry.heatmaps : []).map((h) => h.key)));
    key = key || keys[0];
    modelA = modelA || models[0];
    modelB = modelB || models[1] || models[0];
    // One choice of the route (data set, language, metric, model A, model B) at `position`;
    // another data set starts from its own defaults.
    function select(id, position, options, value) {
      const node = el("select", { attrs: { id } }, options.map((o) => el("option", { text: o, attrs: { value: o } })));
      node.value = value;
      node.addEventListener("change", () => {
        const next = [dataset, lang, key, modelA, modelB];
        next[position] = node.value;
        location.hash = route("compare", ...(position === 0 ? [node.value] : next));
      });
      return node;
    }
    view.appendChild(
      el("div", { cls: "controls" }, [
        select("c-dataset", 0, datasets, dataset),
        select("c-lang", 1, langs, lang),
        select("c-metric", 2, keys, key),
        select("c-a", 3, models, modelA),
        select("c-b", 4, models, modelB),
      ])
    );
    if (!hasFile(dataset, modelA, lang) || !hasFile(dataset, modelB, lang)) {
      view.appendChild(el("p", { text: "Both models need items in " + lang + "." }));
      return Promise.resolve();
    }
    return Promise.all([loadFile(dataset, modelA, lang), loadFile(dataset, modelB, lang)]).then(([a, b]) => {
      const metric = primaryMetric(a, key) || primaryMetric(b, key);
      const byId = {};
      b.items.forEach((item) => (byId[item.id] = item));
      const pairs = a.items.filter((item) => byId[item.id]).map((item) => {
        const other = byId[item.id];
        const x = scoreOf(item, metric);
        const y = scoreOf(other, metric);
        const difference = x !== null && y !== null ? y - x : null;
        const statusA = itemStatus(item, metric);
        const statusB = itemStatus(other, metric);
        const differs = statusA !== statusB || (difference !== null && difference !== 0);
        return { item, other, x, y, difference, statusA, statusB, differs };
      });
      pairs.sort((p, q) => Number(q.differs) - Number(p.differs) || Math.abs(q.difference || 0) - Math.abs(p.difference || 0) || (p.item.id < q.item.id ? -1 : 1));
      view.appendChild(el("p", { cls: "meta", text: (metric ? keyLabel(metric) : "no item score") + ": " + pairs.filter((p) => p.differs).length + " of " + pairs.length + " shared items differ (listed first)." }));
      const rows = pairs.map((p) =>
        el("tr", { cls: p.differs ? "changed" : "", attrs: { "data-item": p.item.id } }, [
          el("td", { text: p.item.id }),
          el("td", {}, [el("a", { href: route("item", dataset, modelA, lang, p.item.id), text: fmt(p.x) }), el("div", { cls: statusClass(p.statusA), text: p.statusA })]),
          el("td", {}, [el("a", { href: route("item", dataset, modelB, lang, p.item.id), text: fmt(p.y) }), el("div", { cls: statusClass(p.statusB), text: p.statusB })]),
          el("td", { text: fmt(p.difference) }),
          el("td", {}, [el("div", { cls: "cell-text", text: p.item.answer })]),
          el("td", {}, [el("div", { cls: "cell-text", text: p.other.answer })]),
        ])
      );
      const compared = table(["item", modelA, modelB, "difference (B − A)", "answer " + modelA, "answer " + modelB], rows);
      compared.id = "compare";
      view.appendChild(compared);
    });
  }

  // The view is drawn: data-ready for the tests, and data-painted-ms (milliseconds since the page
  // began to load, at the first frame after drawing) for benchmarks/explorer_scale.py; the
  // overview marks data-first-painted-ms when its first heatmap is on screen.
  function painted(view, attribute) {
    requestAnimationFrame(() => setTimeout(() => view.setAttribute(attribute, String(Math.round(performance.now()))), 0));
  }

  function drawn(view) {
    view.setAttribute("data-ready", "1");
    painted(view, "data-painted-ms");
  }

  function render() {
    const view = document.getElementById("view");
    view.removeAttribute("data-ready");
    view.removeAttribute("data-painted-ms");
    view.removeAttribute("data-first-painted-ms");
    view.replaceChildren();
    if (!state.overview) {
      showError(view, "data/overview.js did not load: open index.html from the explorer folder, with its data/ beside it.");
      return;
    }
    const parts = location.hash.replace(/^#/, "").split("/").filter((p) => p !== "").map(decodeURIComponent);
    let done;
    try {
      if (parts[0] === "cell" && parts.length === 5) done = renderCell(view, parts[1], parts[2], parts[3], parts[4]);
      else if (parts[0] === "item" && parts.length === 5) done = renderItem(view, parts[1], parts[2], parts[3], parts[4]);
      else if (parts[0] === "compare") done = renderCompare(view, parts.slice(1));
      else done = renderOverview(view, parts[0] === "overview" ? parts[1] : null);
    } catch (error) {
      showError(view, error);
    }
    if (done) done.catch((error) => showError(view, error)).then(() => drawn(view));
    else drawn(view);
  }

  window.addEventListener("hashchange", render);
  window.addEventListener("load", render);
})();

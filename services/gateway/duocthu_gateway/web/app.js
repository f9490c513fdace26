// duocthu web page: renders only verified answers (claims arrive after the verifier), never a draft.
"use strict";
const $ = (id) => document.getElementById(id);
const DISCLAIMER_FALLBACK = "Bản mẫu minh họa, không dùng cho lâm sàng.";
let reasons = {};
let lastAnswer = null;

function conversationId() {
  let id = localStorage.getItem("duocthu.conversation");
  if (!id) {
    id = "web-" + Math.random().toString(36).slice(2, 12);
    localStorage.setItem("duocthu.conversation", id);
  }
  return id;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "onclick") node.addEventListener("click", v); else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

// every error body carries a reason and a trace id (never masked): show both, in the status line or in place
async function errorText(r) {
  let body = {};
  try { body = await r.json(); } catch (e) { /* not JSON: the status code alone */ }
  return `Lỗi ${r.status}: ${body.error || "không rõ"} — ${typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail || "")}`
    + (body.trace_id ? ` (mã truy vết ${body.trace_id})` : "");
}

function pages(range) { return range[0] === range[1] ? `tr. ${range[0]}` : `tr. ${range[0]}–${range[1]}`; }

function openEvidence(citation) {
  $("evidence").hidden = false;
  document.querySelector("main").classList.add("with-evidence");
  $("evidence-title").textContent = `[${citation.index}] ${citation.drug_name} — ${citation.section_title}`;
  $("evidence-meta").textContent = `Trang in ${pages(citation.printed_page_range)} · ${citation.chunk_id}`;
  $("evidence-text").textContent = citation.text;
  const crops = $("evidence-crops");
  crops.replaceChildren();
  for (const region of [...citation.attachments, ...citation.regions]) {
    if (region.crop_url) crops.append(el("img", {src: region.crop_url, alt: `Ảnh trang ${region.printed_page}`}));
  }
}

function chip(citations, index) {
  const c = citations.find((x) => x.index === index);
  return el("button", {class: "chip", type: "button", onclick: () => c && openEvidence(c)}, `[${index}]`);
}

// A released table row (issue 19) reads "Bảng 1. … — header path: cell; header path: cell; …".
const TABLE_ROW = /^(Bảng\s+\d+\b.*?) — (.*)$/s;

function tableRow(text) {
  const m = TABLE_ROW.exec(text);
  if (!m) return null;
  const cells = m[2].split("; ").map((pair) => {
    const at = pair.indexOf(": ");
    return at < 0 ? ["", pair] : [pair.slice(0, at), pair.slice(at + 2)];
  });
  return {caption: m[1], cells};
}

// A cell spanning columns is labelled by their common header path and their leaves, as the ingest worker prints it
// ("Metformin hydroclorid › Liều khởi đầu, Liều tối đa mỗi ngày"): the label of columns[from..to].
function spanLabel(columns) {
  const paths = columns.map((c) => c.split(" › "));
  const common = [];
  for (let i = 0; paths.every((p) => i < p.length) && paths.every((p) => p[i] === paths[0][i]); i++) common.push(paths[0][i]);
  const leaves = [...new Set(paths.map((p) => p.slice(common.length).join(" › ")).filter((x) => x))];
  return (leaves.length ? [...common, leaves.join(", ")] : common).join(" › ");
}

// A row's cells under their columns: a spanned cell gets the colspan of the columns its label covers.
function spannedCells(cells, columns) {
  const out = [];
  let k = 0;
  for (const [label, value] of cells) {
    let span = 1;
    if (columns[k] !== label) {
      for (let j = k + 1; j < columns.length; j++) {
        if (spanLabel(columns.slice(k, j + 1)) === label) { span = j - k + 1; break; }
      }
    }
    out.push(el("td", span > 1 ? {colspan: String(span)} : {}, value));
    k += span;
  }
  return out;
}

// Verified table rows the answer cites, as an HTML table per caption; the rows the claims quote are highlighted.
function renderTables(body, out) {
  const quoted = new Set(body.claims.flatMap((c) => c.citations));
  const tables = new Map();
  for (const c of body.citations) {
    const row = tableRow(c.text);
    if (!row) continue;
    if (!tables.has(row.caption)) tables.set(row.caption, {rows: [], crops: []});
    const t = tables.get(row.caption);
    t.rows.push({row, matched: quoted.has(c.index), index: c.index});
    for (const region of c.regions) if (region.crop_url && !t.crops.includes(region.crop_url)) t.crops.push(region.crop_url);
  }
  for (const [caption, t] of tables) {
    // the columns: a row with no spanned cell has one label per column
    const columns = t.rows.reduce((a, r) => (r.row.cells.length > a.length ? r.row.cells.map(([l]) => l) : a), []);
    const heads = columns.map((label) => el("th", {}, label));
    const table = el("table", {class: "verified-table"}, el("caption", {}, caption), el("thead", {}, el("tr", {}, ...heads)));
    const tbody = el("tbody");
    for (const r of t.rows) {
      const tr = el("tr", {class: r.matched ? "matched" : ""}, ...spannedCells(r.row.cells, columns));
      tr.lastChild.append(chip(body.citations, r.index));
      tbody.append(tr);
    }
    table.append(tbody);
    const box = el("div", {class: "table-with-crop"}, table);
    for (const url of t.crops) box.append(el("img", {src: url, alt: "Ảnh bảng trên trang gốc"}));
    out.append(box);
  }
}

function renderAnswer(body) {
  const out = $("result");
  out.replaceChildren();
  lastAnswer = body;
  const reasonText = body.reason_message || reasons[body.reason] || body.reason;
  if (body.decision === "answerable") {
    const blocks = body.blocks && body.blocks.length ? body.blocks
      : [{title: "", kind: "fact_list", claim_indices: body.claims.map((_, i) => i)}];
    for (const block of blocks) {
      const box = el("div", {class: `block ${block.kind}`});
      if (block.title) box.append(el("h3", {}, block.title));
      for (const i of block.claim_indices) {
        const claim = body.claims[i];
        const p = el("p", {class: "claim"});
        // the API sends a label only after the verifier bound it to the label printed over the claim's passage
        const prefix = claim.label ? `${claim.label}: ` : "";
        if (claim.label && !claim.text.startsWith(prefix)) p.append(el("span", {class: "claim-label"}, prefix));
        p.append(claim.text);
        for (const n of claim.citations) p.append(chip(body.citations, n));
        box.append(p);
      }
      out.append(box);
    }
    renderTables(body, out);
    // a table beside the text answered: shown as a crop of the page to check by eye (once per answer)
    const crops = body.citations.flatMap((c) => c.attachments.map((a) => [a, c.index]));
    if (crops.length) {
      const check = el("div", {class: "verify-pdf"}, el("strong", {}, "Đối chiếu bảng trên trang gốc: "));
      for (const [a, n] of crops) {
        check.append(el("img", {src: a.crop_url, alt: `Ảnh trang ${a.printed_page}`}), chip(body.citations, n));
      }
      out.append(check);
    }
    // an overview gives a few claims per section; the whole monograph is one click away
    const drugs = [...new Set(body.citations.map((c) => c.drug_id))];
    if (body.route === "B" && drugs.length === 1) {
      out.append(el("p", {class: "more"}, el("button", {type: "button", onclick: () => openMonograph(drugs[0])},
                                              "Tra chuyên luận"), " để đọc đầy đủ các mục."));
    }
  } else if (body.decision === "verify_pdf") {
    const box = el("div", {class: "verify-pdf"}, el("strong", {}, "Cần đối chiếu PDF: "), reasonText);
    const seen = new Set();
    for (const c of body.citations) {
      for (const region of [...c.attachments, ...c.regions]) {
        if (!region.crop_url || seen.has(region.crop_url)) continue;  // each crop once per answer
        seen.add(region.crop_url);
        box.append(el("img", {src: region.crop_url, alt: `Ảnh trang ${region.printed_page}`}));
      }
      box.append(chip(body.citations, c.index));
    }
    out.append(box);
  } else if (body.decision === "clarify") {
    out.append(el("p", {}, body.answer || reasonText));
    const replies = el("div", {class: "quick-replies"});
    for (const r of body.quick_replies) replies.append(el("button", {type: "button", onclick: () => ask(r)}, r));
    out.append(replies);
  } else {
    out.append(el("div", {class: "abstain"}, el("strong", {}, "Không trả lời: "), reasonText));
  }
  const fb = el("div", {class: "feedback"}, "Câu trả lời có hữu ích không?",
    el("button", {type: "button", onclick: () => feedback(body.trace_id, true)}, "Có"),
    el("button", {type: "button", onclick: () => feedback(body.trace_id, false)}, "Không"));
  out.append(fb);
  $("disclaimer").textContent = body.disclaimer || DISCLAIMER_FALLBACK;
}

async function feedback(traceId, helpful) {
  const r = await fetch("/v1/rag/feedback", {method: "POST", headers: {"Content-Type": "application/json"},
                                            body: JSON.stringify({trace_id: traceId, helpful})});
  $("status").textContent = r.ok ? "Đã ghi nhận phản hồi. Cảm ơn bạn!" : `Không ghi được phản hồi. ${await errorText(r)}`;
}

async function ask(query) {
  $("query").value = query;
  $("status").textContent = "Đang xử lý: hiểu câu hỏi → truy xuất → soạn → kiểm chứng…";
  $("ask").disabled = true;
  try {
    // server-sent events: a status line per stage, then the verified result (never a draft)
    const r = await fetch("/v1/rag/query/stream", {method: "POST", headers: {"Content-Type": "application/json"},
                                                  body: JSON.stringify({query, conversation_id: conversationId()})});
    if (!r.ok) {
      $("result").replaceChildren(el("div", {class: "abstain"}, await errorText(r)));
    } else {
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, {stream: true});
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const chunk = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const name = (chunk.match(/^event: (.*)$/m) || [])[1];
          const data = JSON.parse((chunk.match(/^data: (.*)$/m) || [])[1] || "null");
          if (name === "status") $("status").textContent = data.text;
          if (name === "result") renderAnswer(data);
        }
      }
    }
    $("status").textContent = "";
    loadHistory();
  } catch (e) {
    $("status").textContent = "Không kết nối được máy chủ.";
  } finally {
    $("ask").disabled = false;
  }
}

async function loadHistory() {
  const r = await fetch(`/v1/rag/history?conversation_id=${encodeURIComponent(conversationId())}`);
  if (!r.ok) { $("history-error").textContent = `Không tải được lịch sử. ${await errorText(r)}`; return; }
  $("history-error").textContent = "";
  const body = await r.json();
  const list = $("history-list");
  list.replaceChildren();
  for (const t of body.turns) {
    list.append(el("li", {}, el("button", {type: "button", title: "Hỏi lại", onclick: () => ask(t.query)}, t.query)));
  }
}

async function loadDrugs() {
  const r = await fetch("/v1/rag/drugs");
  if (!r.ok) { $("section-text").textContent = await errorText(r); return; }
  const body = await r.json();
  for (const d of body.drugs) $("drug-select").append(el("option", {value: d.drug_id}, d.drug_name));
}

async function loadSections(drugId) {
  const select = $("section-select");
  select.replaceChildren(el("option", {value: ""}, "— chọn mục —"));
  select.disabled = !drugId;
  $("section-text").textContent = "";
  if (!drugId) return;
  const r = await fetch(`/v1/rag/sections?drug_id=${encodeURIComponent(drugId)}`);
  if (!r.ok) { $("section-text").textContent = await errorText(r); return; }
  for (const s of (await r.json()).sections) select.append(el("option", {value: s.section_key}, s.section_title));
}

async function loadSectionText(drugId, key) {
  const r = await fetch(`/v1/rag/section-text?drug_id=${encodeURIComponent(drugId)}&section_key=${key}`);
  $("section-text").textContent = r.ok ? (await r.json()).text : await errorText(r);
}

async function openMonograph(drugId) {
  setMode("monograph");
  if ($("drug-select").options.length === 1) await loadDrugs();
  $("drug-select").value = drugId;
  await loadSections(drugId);
}

// the release that answers now (asked of retrieval each time, so a new release shows without a reload)
async function loadRelease() {
  const r = await fetch("/v1/rag/release");
  if (!r.ok) { $("release").textContent = "Chưa có bản phát hành nào đang phục vụ"; return; }
  const body = await r.json();
  const built = body.built_at ? new Date(body.built_at).toLocaleString("vi-VN") : "không rõ";
  $("release").textContent = `Bản phát hành ${body.release_id} · ${body.drug_count} thuốc · dựng lúc ${built}`;
}

const STAGES = {parse: "đọc trang", embed: "nhúng đoạn", done: "xong", failed: "thất bại"};
let adminTimer = null;

// admins only: the token stays in this tab (sessionStorage) and goes only to /v1/admin/*
async function loadIngestJobs() {
  const token = sessionStorage.getItem("duocthu.admin") || "";
  if (!token) return;
  const r = await fetch("/v1/admin/ingest/jobs", {headers: {Authorization: `Bearer ${token}`}});
  if (!r.ok) {
    $("admin-status").textContent = await errorText(r);
    clearInterval(adminTimer); adminTimer = null; return;
  }
  const {jobs} = await r.json();
  $("admin-status").textContent = jobs.length ? "" : "Không có công việc nạp nào gần đây.";
  $("ingest-jobs").hidden = !jobs.length;
  $("ingest-jobs").querySelector("tbody").replaceChildren(...jobs.map((job) => {
    const bar = el("progress", job.total ? {max: String(job.total), value: String(job.done)} : {});
    const count = job.total ? `${job.done}/${job.total}` : String(job.done);
    return el("tr", {}, el("td", {}, job.release_id), el("td", {}, String(job.part_index)),
              el("td", {}, STAGES[job.stage] || job.stage), el("td", {}, bar, " ", count),
              el("td", {}, new Date(job.updated_at).toLocaleTimeString("vi-VN")));
  }));
  if (jobs.some((job) => job.stage === "done")) loadRelease();
}

function watchIngest() {
  loadIngestJobs();
  if (!adminTimer) adminTimer = setInterval(loadIngestJobs, 2000);
}

function setMode(mode) {
  $("answer-mode").hidden = mode !== "answer";
  $("monograph-mode").hidden = mode !== "monograph";
  $("mode-answer").classList.toggle("active", mode === "answer");
  $("mode-monograph").classList.toggle("active", mode === "monograph");
  if (mode === "monograph" && $("drug-select").options.length === 1) loadDrugs();
}

document.addEventListener("DOMContentLoaded", async () => {
  $("disclaimer").textContent = DISCLAIMER_FALLBACK;
  $("ask-form").addEventListener("submit", (e) => { e.preventDefault(); ask($("query").value.trim()); });
  $("new-conversation").addEventListener("click", () => {
    localStorage.removeItem("duocthu.conversation"); $("result").replaceChildren(); loadHistory();
  });
  $("close-evidence").addEventListener("click", () => {
    $("evidence").hidden = true; document.querySelector("main").classList.remove("with-evidence");
  });
  $("mode-answer").addEventListener("click", () => setMode("answer"));
  $("mode-monograph").addEventListener("click", () => setMode("monograph"));
  $("drug-select").addEventListener("change", (e) => loadSections(e.target.value));
  $("section-select").addEventListener("change", (e) => loadSectionText($("drug-select").value, e.target.value));
  const d = await fetch("/v1/rag/disclaimer");
  if (d.ok) $("disclaimer").textContent = (await d.json()).disclaimer;
  const r = await fetch("/v1/rag/reasons");
  if (r.ok) reasons = await r.json();
  $("admin-form").addEventListener("submit", (e) => {
    e.preventDefault(); sessionStorage.setItem("duocthu.admin", $("admin-token").value); watchIngest();
  });
  if (sessionStorage.getItem("duocthu.admin")) watchIngest();
  loadRelease();
  loadHistory();
});

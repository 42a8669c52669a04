// Sorting, filtering and searching the report's tables, in the page itself: no request, no
// library, and nothing lost without it (every row is in the HTML; this only reorders and hides).
// The report's Content-Security-Policy allows this script by its sha256 alone, so an edit here
// changes the hash the program writes beside it.
(function () {
  'use strict';
  var main = document.querySelector('main');
  if (!main) return;
  var words = main.dataset;
  var lang = document.documentElement.lang || 'pt-BR';
  var decimalComma = lang.indexOf('pt') === 0;
  var collator = new Intl.Collator(lang, { numeric: true, sensitivity: 'base' });
  var units = { mil: 1e3, k: 1e3, mi: 1e6, mn: 1e6, bi: 1e9, bn: 1e9, tri: 1e12, tn: 1e12 };
  var months = ['jan', 'fev', 'mar', 'abr', 'mai', 'jun', 'jul', 'ago', 'set', 'out', 'nov', 'dez'];
  var monthsEn = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

  // A figure as the report writes it (R$ 1.234,56 / -R$ 3,4 mi / +12,5 % / 1.024 / 12.345.678/0001-95
  // is not one): its value, or null when the cell holds no figure (such as a dash).
  function numberOf(text) {
    var t = text.replace(/[\s\u00a0]|R\$|%/g, '').replace(/\u2212/g, '-');
    var unit = /(mil|mi|bi|tri|k|mn|bn|tn)$/.exec(t);
    var scale = 1;
    if (unit) {
      scale = units[unit[1]];
      t = t.slice(0, -unit[1].length);
    }
    t = decimalComma ? t.split('.').join('').replace(',', '.') : t.split(',').join('');
    return /^[+-]?\d+(\.\d+)?$/.test(t) ? parseFloat(t) * scale : null;
  }

  // jan/2026 or Jan 2026 as a month number, so months sort in time and not by name.
  function monthOf(text) {
    var m = /^([a-z]{3})[\/ ](\d{4})$/i.exec(text.trim());
    if (!m) return null;
    var name = m[1].toLowerCase();
    var i = months.indexOf(name);
    if (i < 0) i = monthsEn.indexOf(name);
    return i < 0 ? null : parseInt(m[2], 10) * 12 + i;
  }

  // Lower case without accents: "Indústria" is found by "industria".
  function folded(text) {
    return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  }

  function cellText(row, i) {
    var cell = row.cells[i];
    return cell ? cell.textContent.trim() : '';
  }

  function explore(table) {
    var head = table.tHead && table.tHead.rows[0];
    var body = table.tBodies[0];
    if (!head || !body) return;
    // A total row (or a one-cell note) stays last, whatever the order or the filters.
    var rows = [];
    var pinned = [];
    Array.prototype.forEach.call(body.rows, function (r) {
      var data = !r.classList.contains('total') && r.cells.length === head.cells.length;
      (data ? rows : pinned).push(r);
    });
    if (rows.length < 2) return;
    var headers = Array.prototype.slice.call(head.cells);
    // A long table shows a page of rows at a time: the browser lays out those alone, so a sort
    // or a filter over 20,000 companies answers at once. Without this script the page's style
    // shows them all.
    var page = parseInt(table.getAttribute('data-pagina') || '0', 10) || rows.length;
    var shownUpTo = page;
    var kept = rows;
    var count = null;
    var more = null;
    var all = null;
    var filters = [];
    var searchIn = [];
    var searchText = null;
    var query = '';

    function keysOf(i) {
      var numeric = headers[i].classList.contains('num');
      return rows.map(function (r) {
        var t = cellText(r, i);
        var n = numeric ? numberOf(t) : monthOf(t);
        return { n: n, t: t };
      });
    }

    function sortBy(i) {
      var th = headers[i];
      var numeric = th.classList.contains('num');
      // Figures largest first, words from A; a second click reverses.
      var current = th.getAttribute('aria-sort');
      var descending = current ? current === 'ascending' : numeric;
      var keys = keysOf(i);
      var order = rows.map(function (r, k) { return k; });
      order.sort(function (a, b) {
        var x = keys[a], y = keys[b];
        // Cells without a figure go last in either direction.
        if (x.n === null && y.n !== null) return 1;
        if (y.n === null && x.n !== null) return -1;
        var c = x.n !== null ? x.n - y.n : collator.compare(x.t, y.t);
        return descending ? -c : c;
      });
      rows = order.map(function (k) { return rows[k]; });
      if (searchText) searchText = order.map(function (k) { return searchText[k]; });
      // Reordered out of the page: moved one by one in place, each row would make the browser
      // restyle every row after it (the positional selectors of the style), seconds at 20,000.
      var parent = body.parentNode, next = body.nextSibling;
      parent.removeChild(body);
      rows.concat(pinned).forEach(function (r) { body.appendChild(r); });
      parent.insertBefore(body, next);
      headers.forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      apply();
    }

    function matches(k) {
      for (var f = 0; f < filters.length; f++) {
        var want = filters[f].select.value;
        if (want && cellText(rows[k], filters[f].column) !== want) return false;
      }
      if (!query) return true;
      if (!searchText) {
        searchText = rows.map(function (r) {
          var text = searchIn.map(function (i) { return cellText(r, i); }).join(' ');
          return folded(text) + ' ' + text.replace(/\D/g, '');
        });
      }
      return searchText[k].indexOf(query) >= 0;
    }

    // Shows the rows that pass the filters and the search, up to the page's end.
    function apply() {
      kept = rows.filter(function (r, k) { return matches(k); });
      var visible = new Set(kept.slice(0, shownUpTo));
      rows.forEach(function (r) {
        var hide = !visible.has(r);
        if (r.hidden !== hide) r.hidden = hide;
      });
      if (count) {
        var shown = Math.min(shownUpTo, kept.length);
        var n = function (x) { return x.toLocaleString(lang); };
        count.textContent = shown < kept.length
          ? n(shown) + ' ' + words.linhasDe + ' ' + n(kept.length) + ' ' + words.linhas +
            (kept.length < rows.length ? ' (' + n(rows.length) + ' ' + words.noTotal + ')' : '')
          : (kept.length < rows.length ? n(kept.length) + ' ' + words.linhasDe + ' ' : '') +
            n(rows.length) + ' ' + words.linhas;
      }
      if (more) more.hidden = all.hidden = shownUpTo >= kept.length;
    }

    function restart() {
      shownUpTo = page;
      apply();
    }

    headers.forEach(function (th, i) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.title = words.ordenar;
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener('click', function () { sortBy(i); });
      if (th.hasAttribute('data-busca')) searchIn.push(i);
    });

    // The search box and the filters: on the tables meant to be explored, and on any long one.
    var explorable = table.classList.contains('explore') || rows.length >= 12;
    if (!explorable) return;
    var bar = document.createElement('div');
    bar.className = 'explore-bar';
    var input = document.createElement('input');
    input.type = 'search';
    if (!searchIn.length) searchIn = headers.map(function (h, i) { return i; });
    input.placeholder = table.classList.contains('explore') ? words.buscar : words.filtrar;
    input.setAttribute('aria-label', input.placeholder);
    input.addEventListener('input', function () {
      var q = input.value.trim();
      // A CNPJ is found typed with or without its dots, slash and dash.
      query = /^[\d.\/\-\s]+$/.test(q) ? q.replace(/\D/g, '') : folded(q);
      restart();
    });
    bar.appendChild(input);
    headers.forEach(function (th, i) {
      if (!th.hasAttribute('data-filtro')) return;
      var values = {};
      rows.forEach(function (r) { values[cellText(r, i)] = true; });
      var label = document.createElement('label');
      label.textContent = th.textContent.trim() + ' ';
      var select = document.createElement('select');
      select.setAttribute('data-coluna', String(i));
      select.appendChild(new Option(words.todas, ''));
      Object.keys(values).sort(collator.compare).forEach(function (v) {
        if (v) select.appendChild(new Option(v, v));
      });
      select.addEventListener('change', restart);
      label.appendChild(select);
      bar.appendChild(label);
      filters.push({ column: i, select: select });
    });
    count = document.createElement('span');
    count.className = 'explore-count';
    count.setAttribute('aria-live', 'polite');
    bar.appendChild(count);
    table.parentNode.insertBefore(bar, table);
    if (page < rows.length) {
      var after = document.createElement('div');
      after.className = 'explore-bar explore-more';
      more = document.createElement('button');
      more.type = 'button';
      more.className = 'mais';
      more.textContent = words.mostrarMais + ' ' + page.toLocaleString(lang);
      more.addEventListener('click', function () { shownUpTo += page; apply(); });
      all = document.createElement('button');
      all.type = 'button';
      all.className = 'todas';
      all.textContent = words.mostrarTodas;
      all.addEventListener('click', function () { shownUpTo = rows.length; apply(); });
      after.appendChild(more);
      after.appendChild(all);
      table.parentNode.insertBefore(after, table.nextSibling);
    }
    table.classList.add('explorando');
    apply();
  }

  Array.prototype.forEach.call(main.querySelectorAll('table'), function (table) {
    if (!table.closest('.title-page')) explore(table);
  });
  document.documentElement.setAttribute('data-explorar', 'pronto');
})();

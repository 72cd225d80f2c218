package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/kchaos/kchaos/internal/owned"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Page is what one kind of batch (matrix, suite, audit) shows of its rows,
// written as data so that one writer family (md, html, json, junit) serves
// all three: the columns, the JSON names, and how a row's Status sorts
// (pass, fail, skip) for CI. What a batch exits with is the engine's rule
// over that sorting (harness.ExitCode), not the page's.
type Page struct {
	// File is the stem of the pages: matrix.md, matrix.html, matrix.json.
	File string
	// SettingColumns puts one column per varied setting before Columns.
	SettingColumns bool
	Columns        []Column
	// RowsKey names the rows in the JSON file ("rows", "cells"); JSON
	// lists the fields of a row there, in order.
	RowsKey string
	JSON    []Field
	// Pass, Fail and Skip sort the statuses: a row of a Fail status is a
	// junit failure, a Skip status a junit skip, any other status than
	// these and Pass a junit error (the cell could not be judged). The
	// batch engine's exit rule reads the same sorting (harness.ExitCode:
	// Fail is exit 1, a status of none of the three exit 2).
	Pass, Fail, Skip []string
	// FailMessage is a junit failure's message.
	FailMessage string
	// JUnit asks for junit.xml beside the pages.
	JUnit bool
}

// Column is one column of a page's table: its heading, its markdown text
// and, where the HTML shows more (a bar, a link, a colour), its HTML.
type Column struct {
	Head  string
	Right bool // numbers: right-aligned
	Text  func(r Row) string
	// HTML, when set, renders the cell for the HTML page; all is every
	// row, for scales. Class, when set, is the cell's CSS class.
	HTML  func(r Row, all []Row) template.HTML
	Class func(r Row) string
}

// Field is one field of a row in the JSON file: Key as written, From the
// Row's own JSON name (default Key), Omit when empty.
type Field struct {
	Key, From string
	Omit      bool
}

// Batch is one page family's content: its title and introduction, its
// rows, the sections after the table, and the top-level JSON fields.
type Batch struct {
	Page *Page
	// Name is the batch's own name (a suite's, a matrix's scenario), in
	// junit.xml's class names.
	Name     string
	Title    string
	Intro    string
	Rows     []Row
	Sections []Section
	// JSONHead and JSONTail are the JSON file's fields before and after
	// the rows.
	JSONHead, JSONTail []Value
}

// Value is a top-level JSON field.
type Value struct {
	Key   string
	Value any
	Omit  bool // when empty
}

// Section is a part of a page after its table: a heading ("" for a note),
// then a list, then a paragraph.
type Section struct {
	Title string
	Items [][]Span
	Para  []Span
}

// Span is a piece of a section's text.
type Span struct {
	Text         string
	Code, Strong bool
}

// code and Strong are spans of code and of bold text.
func code(s string) Span   { return Span{Text: s, Code: true} }
func strong(s string) Span { return Span{Text: s, Strong: true} }

// plain is a span of text.
func plain(format string, a ...any) Span { return Span{Text: fmt.Sprintf(format, a...)} }

// Write writes the page family into dir: File.md, File.html, File.json
// and, when the page asks, junit.xml. Run folders are linked relative to
// dir. A batch calls it after every row, so an interrupted batch leaves
// the rows it finished.
func (b Batch) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rel := b
	rel.Rows = slices.Clone(b.Rows)
	for i, r := range rel.Rows {
		if p, err := filepath.Rel(dir, r.RunDir); err == nil && r.RunDir != "" {
			rel.Rows[i].RunDir = filepath.ToSlash(p)
		}
	}
	js, err := rel.json()
	if err != nil {
		return err
	}
	var html bytes.Buffer
	if err := batchTmpl.Execute(&html, rel.view()); err != nil {
		return err
	}
	files := map[string][]byte{
		b.Page.File + ".json": js,
		b.Page.File + ".md":   rel.markdown(),
		b.Page.File + ".html": html.Bytes(),
	}
	if b.Page.JUnit {
		if files["junit.xml"], err = rel.junit(); err != nil {
			return err
		}
	}
	names := slices.Sorted(maps.Keys(files))
	if err := owned.CheckAll(dir, names...); err != nil {
		return err
	}
	for _, name := range names {
		if err := owned.Write(filepath.Join(dir, name), files[name]); err != nil {
			return err
		}
	}
	return nil
}

// columns are the page's columns for rows: the varied settings first when
// the page asks.
func (b Batch) columns() []Column {
	if !b.Page.SettingColumns {
		return b.Page.Columns
	}
	var cols []Column
	for _, k := range settingKeys(b.Rows) {
		cols = append(cols, Column{Head: k, Text: func(r Row) string { return r.Settings[k] }})
	}
	return append(cols, b.Page.Columns...)
}

func (b Batch) markdown() []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# %s\n\n%s\n\n|", b.Title, b.Intro)
	cols := b.columns()
	for _, c := range cols {
		w.WriteString(" " + mdCell(c.Head) + " |")
	}
	w.WriteString("\n|")
	for _, c := range cols {
		if c.Right {
			w.WriteString("---:|")
		} else {
			w.WriteString("---|")
		}
	}
	w.WriteString("\n")
	for _, r := range b.Rows {
		w.WriteString("|")
		for _, c := range cols {
			w.WriteString(" " + mdCell(c.Text(r)) + " |")
		}
		w.WriteString("\n")
	}
	for _, s := range b.Sections {
		if s.Title != "" {
			fmt.Fprintf(&w, "\n## %s\n", mdText(s.Title))
		}
		if len(s.Items) > 0 {
			w.WriteString("\n")
		}
		for _, it := range s.Items {
			w.WriteString("- " + mdSpans(it) + "\n")
		}
		if len(s.Para) > 0 {
			w.WriteString("\n" + mdSpans(s.Para) + "\n")
		}
	}
	return w.Bytes()
}

func mdSpans(spans []Span) string {
	var out strings.Builder
	for _, s := range spans {
		t := strings.ReplaceAll(s.Text, "\n", " ")
		switch {
		case s.Code:
			out.WriteString("`" + t + "`")
		case s.Strong:
			out.WriteString("**" + t + "**")
		default:
			out.WriteString(t)
		}
	}
	return out.String()
}

// json writes the fields in the page's order, so that a page's file keeps
// its shape (matrix.json's "config", suite.json's "cells").
func (b Batch) json() ([]byte, error) {
	var w bytes.Buffer
	w.WriteString("{")
	first := true
	put := func(key string, raw []byte, omit bool) {
		if omit && isEmptyJSON(raw) {
			return
		}
		if !first {
			w.WriteString(",")
		}
		first = false
		k, _ := json.Marshal(key)
		w.Write(k)
		w.WriteString(":")
		w.Write(raw)
	}
	for _, v := range b.JSONHead {
		raw, err := json.Marshal(v.Value)
		if err != nil {
			return nil, err
		}
		put(v.Key, raw, v.Omit)
	}
	rows := []json.RawMessage{}
	for _, r := range b.Rows {
		raw, err := b.Page.rowJSON(r)
		if err != nil {
			return nil, err
		}
		rows = append(rows, raw)
	}
	raw, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	put(b.Page.RowsKey, raw, false)
	for _, v := range b.JSONTail {
		raw, err := json.Marshal(v.Value)
		if err != nil {
			return nil, err
		}
		put(v.Key, raw, v.Omit)
	}
	w.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, w.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return append(out.Bytes(), '\n'), nil
}

func (p *Page) rowJSON(r Row) (json.RawMessage, error) {
	all, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(all, &byName); err != nil {
		return nil, err
	}
	var w bytes.Buffer
	w.WriteString("{")
	n := 0
	for _, f := range p.JSON {
		from := f.From
		if from == "" {
			from = f.Key
		}
		raw, ok := byName[from]
		if !ok || f.Omit && isEmptyJSON(raw) {
			continue
		}
		if n > 0 {
			w.WriteString(",")
		}
		n++
		k, _ := json.Marshal(f.Key)
		w.Write(k)
		w.WriteString(":")
		w.Write(raw)
	}
	w.WriteString("}")
	return w.Bytes(), nil
}

func isEmptyJSON(raw []byte) bool {
	switch strings.TrimSpace(string(raw)) {
	case "null", `""`, "0", "[]", "{}", "false":
		return true
	}
	return false
}

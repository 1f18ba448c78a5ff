package export

import (
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

// column is one column of a console table.
type column struct {
	header string
	align  text.Align
	// wrap marks the column that gives up width (wrapping its cells) when
	// the table is wider than the console.
	wrap bool
}

// lightBox is the box go-pretty draws with; richTable turns the header
// part heavy afterwards, since go-pretty has one set of verticals and
// corners for the whole table while Rich's default (HEAVY_HEAD) uses heavy
// lines around the header only.
var lightBox = table.BoxStyle{
	BottomLeft:       "└",
	BottomRight:      "┘",
	BottomSeparator:  "┴",
	EmptySeparator:   " ",
	Left:             "│",
	LeftSeparator:    "├",
	MiddleHorizontal: "─",
	MiddleSeparator:  "┼",
	MiddleVertical:   "│",
	PaddingLeft:      " ",
	PaddingRight:     " ",
	PageSeparator:    "\n",
	Right:            "│",
	RightSeparator:   "┤",
	TopLeft:          "┌",
	TopRight:         "┐",
	TopSeparator:     "┬",
	UnfinishedRow:    " ~",
}

// heavyTop and heavyHeadSep map the light glyphs of the top border and of
// the line under the header to Rich's HEAVY_HEAD glyphs.
var (
	heavyTop     = strings.NewReplacer("┌", "┏", "─", "━", "┬", "┳", "┐", "┓")
	heavyHeadSep = strings.NewReplacer("├", "┡", "─", "━", "┼", "╇", "┤", "┩")
)

// minWrapWidth is the narrowest a wrap column is squeezed to.
const minWrapWidth = 10

// richTable renders a table the way Rich prints AIPerf's tables: the title
// centered over the table (padded to its width), a heavy header box, cells
// padded by one space, multi-line cells top-aligned. When the table is
// wider than width, the wrap column gives up the excess (down to
// minWrapWidth cells): its cells are word-wrapped as Rich wraps them. A
// table whose other columns alone exceed width stays wider than width.
// The result ends with a newline.
func richTable(title string, cols []column, rows [][]string, width int) string {
	if width > 0 {
		rows = fitWrapColumn(cols, rows, width)
	}
	out := renderTable(cols, rows)

	lines := strings.Split(out, "\n")
	// Lines between the top border and the line under the header belong
	// to the header.
	for i, l := range lines {
		if i == 0 {
			lines[i] = heavyTop.Replace(l)
			continue
		}
		if strings.HasPrefix(l, "├") {
			lines[i] = heavyHeadSep.Replace(l)
			break
		}
		lines[i] = strings.ReplaceAll(l, "│", "┃")
	}
	tw := firstLineWidth(out)
	var b strings.Builder
	if title != "" {
		for _, tl := range wrapText(title, tw) {
			b.WriteString(centerIn(strings.TrimSpace(tl), tw, " "))
			b.WriteByte('\n')
		}
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func firstLineWidth(s string) int {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return cells(s)
}

// fitWrapColumn narrows the wrap column so the table fits width,
// returning rows with that column's cells wrapped (other cells unchanged).
func fitWrapColumn(cols []column, rows [][]string, width int) [][]string {
	natural := make([]int, len(cols))
	total := len(cols) + 1 // vertical lines
	for i, c := range cols {
		natural[i] = cells(c.header)
		for _, r := range rows {
			for _, l := range strings.Split(r[i], "\n") {
				natural[i] = max(natural[i], cells(l))
			}
		}
		total += natural[i] + 2 // one space of padding each side
	}
	excess := total - width
	if excess <= 0 {
		return rows
	}
	out := make([][]string, len(rows))
	for j := range rows {
		out[j] = slices.Clone(rows[j])
	}
	for i, c := range cols {
		if !c.wrap || natural[i] <= minWrapWidth {
			continue
		}
		limit := max(natural[i]-excess, minWrapWidth)
		for j := range out {
			lines := wrapText(out[j][i], limit)
			for k, l := range lines {
				lines[k] = strings.TrimRight(l, " ")
			}
			out[j][i] = strings.Join(lines, "\n")
		}
		excess -= natural[i] - limit
		if excess <= 0 {
			break
		}
	}
	return out
}

// renderTable lays the table out with go-pretty.
func renderTable(cols []column, rows [][]string) string {
	t := table.NewWriter()
	t.SetStyle(table.Style{
		Name: "rich-heavy-head",
		Box:  lightBox,
		Format: table.FormatOptions{
			Header: text.FormatDefault,
			Row:    text.FormatDefault,
			Footer: text.FormatDefault,
		},
		Options: table.Options{
			DrawBorder:      true,
			SeparateColumns: true,
			SeparateHeader:  true,
		},
	})
	header := make(table.Row, len(cols))
	cfgs := make([]table.ColumnConfig, len(cols))
	for i, c := range cols {
		header[i] = c.header
		cfgs[i] = table.ColumnConfig{Number: i + 1, Align: c.align, AlignHeader: c.align}
	}
	t.AppendHeader(header)
	t.SetColumnConfigs(cfgs)
	for _, r := range rows {
		row := make(table.Row, len(r))
		for i, c := range r {
			row[i] = c
		}
		t.AppendRow(row)
	}
	return t.Render()
}

package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The drawing kit shared by the run and sweep plots: one sans-serif font, one palette,
// legends outside the data area, a few plotters gonum/plot lacks (bars on a log axis, bands,
// spans, event markers, notes), and rendering to SVG and PNG with deterministic bytes.

// pngDPI is the resolution of the PNG files.
const pngDPI = 110

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func fontOf(size vg.Length) font.Font { return font.From(sans, size) }

// The palette: Tableau's ten colours, distinguishable and readable on white.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

var (
	colBlue   = palette[0]
	colOrange = palette[1]
	colGreen  = palette[2]
	colRed    = palette[3]
	colPurple = palette[4]
	colBrown  = palette[5]
	colGrey   = palette[7]
	colBlack  = color.RGBA{0x22, 0x22, 0x22, 0xff}
	colLight  = color.RGBA{0xbb, 0xbb, 0xbb, 0xff}
)

// seriesPalette colours data series (partitions, consumers, groups): the palette without
// red, which marks faults, crashes and caps, so that no series is mistaken for one.
var seriesPalette = func() []color.RGBA {
	var out []color.RGBA
	for _, c := range palette {
		if c != colRed {
			out = append(out, c)
		}
	}
	return out
}()

func pal(i int) color.RGBA { return seriesPalette[i%len(seriesPalette)] }

// darken returns c with each channel scaled by f in [0, 1].
func darken(c color.RGBA, f float64) color.RGBA {
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), c.A}
}

// fade returns c with alpha a (premultiplied, as color.RGBA wants).
func fade(c color.RGBA, a uint8) color.RGBA {
	f := float64(a) / 255
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), a}
}

// newPlot returns a plot with the report's fonts, a light grid and the given texts.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = fontOf(13)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = fontOf(11)
		a.Tick.Label.Font = fontOf(9.5)
		a.Tick.Marker = niceTicks{}
		a.Padding = vg.Points(2)
	}
	p.Legend.TextStyle.Font = fontOf(10)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}, color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(g)
	return p
}

// niceTicks put five to eight major ticks on round values (steps of 1, 2, 2.5 or 5 times a
// power of ten) with short labels: 12k, 1.5M, 0.25.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	span := hi - lo
	mag := math.Pow(10, math.Floor(math.Log10(span/6)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if span/(m*mag) <= 8 {
			step = m * mag
			break
		}
	}
	var ts []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		ts = append(ts, plot.Tick{Value: v, Label: shortNum(v)})
		if mid := v + step/2; mid <= hi {
			ts = append(ts, plot.Tick{Value: mid})
		}
	}
	return ts
}

// shortNum formats a tick value compactly.
func shortNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return trimFloat(v/1e6, 2) + "M"
	case a >= 1e4:
		return trimFloat(v/1e3, 1) + "k"
	case a == 0:
		return "0"
	}
	return trimFloat(v, 6)
}

func trimFloat(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// Log axes: gonum's LogScale centres axis labels on the arithmetic middle of the range,
// which pushes them off the plot, so log axes here are linear axes over log10 of the data,
// with ticks that label the powers of ten.

// lg is a value's position on a log axis.
func lg(v float64) float64 { return math.Log10(v) }

// logTicks label the powers of ten (1, 10, 100, 1k; 0.1, 0.01 below one) of an axis whose
// data are log10 values, with minor ticks at 2..9 times each.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	in := func(v float64) bool { return v >= lo-1e-9 && v <= hi+1e-9 }
	var out []plot.Tick
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		if in(e) {
			out = append(out, plot.Tick{Value: e, Label: shortNum(math.Pow(10, e))})
		}
		for k := 2.0; k < 10; k++ {
			if v := e + math.Log10(k); in(v) {
				out = append(out, plot.Tick{Value: v})
			}
		}
	}
	return out
}

// chart is a plot with its legend drawn outside the data area: in columns below the plot, or
// on its right (legendRight, for tall plots).
type chart struct {
	p           *plot.Plot
	items       []legendItem
	legendRight bool
	// xMax, when set, ends the x axis there whatever the data (lines are clipped).
	xMax *float64
}

// legendItem is one legend entry.
type legendItem struct {
	name   string
	thumbs []plot.Thumbnailer
}

func newChart(title, xlabel, ylabel string) *chart {
	return &chart{p: newPlot(title, xlabel, ylabel)}
}

// add adds plotters; a non-empty name also adds a legend entry showing them.
func (ch *chart) add(name string, ps ...plot.Plotter) {
	ch.p.Add(ps...)
	if name != "" && len(ps) > 0 {
		var thumbs []plot.Thumbnailer
		for _, p := range ps {
			if t, ok := p.(plot.Thumbnailer); ok {
				thumbs = append(thumbs, t)
			}
		}
		ch.key(name, thumbs...)
	}
}

// key adds a legend entry.
func (ch *chart) key(name string, thumbs ...plot.Thumbnailer) {
	ch.items = append(ch.items, legendItem{name: name, thumbs: thumbs})
}

func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = fontOf(10)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(18)
	l.Padding = vg.Points(2)
	return l
}

var legendStyle = newLegend()

// legendColumn is the width one column of entries needs.
func legendColumn(items []legendItem) vg.Length {
	var w vg.Length
	for _, it := range items {
		w = max(w, legendStyle.TextStyle.Width(it.name))
	}
	return w + legendStyle.ThumbnailWidth + vg.Points(18)
}

func legendEntryHeight() vg.Length {
	return legendStyle.TextStyle.FontExtents().Height + legendStyle.Padding
}

// legendBelow lays the entries out in as many columns as fit in width (filled column by
// column) and returns the columns and the height they need.
func legendBelow(items []legendItem, width vg.Length) ([][]legendItem, vg.Length) {
	if len(items) == 0 {
		return nil, 0
	}
	for cols := min(len(items), 4); cols >= 1; cols-- {
		rows := (len(items) + cols - 1) / cols
		var split [][]legendItem
		var total vg.Length
		for c := 0; c < cols; c++ {
			lo, hi := c*rows, min((c+1)*rows, len(items))
			if lo >= hi {
				break
			}
			split = append(split, items[lo:hi])
			total += legendColumn(items[lo:hi])
		}
		if total <= width || cols == 1 {
			return split, vg.Length(rows)*legendEntryHeight() + vg.Points(10)
		}
	}
	return nil, 0
}

// drawLegendColumns draws legend columns from the top left of c.
func drawLegendColumns(c draw.Canvas, cols [][]legendItem) {
	x := c.Min.X
	for _, col := range cols {
		l := newLegend()
		for _, it := range col {
			l.Add(it.name, it.thumbs...)
		}
		l.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: c.Min.Y}, Max: c.Max}})
		x += legendColumn(col)
	}
}

// saneAxes replaces a non-finite or empty axis range (no data) by [0, 1], so that gonum's
// tick search always ends.
func saneAxes(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if math.IsNaN(a.Min) || math.IsNaN(a.Max) || math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) {
			a.Min, a.Max = 0, 1
		}
	}
}

func (ch *chart) draw(dc draw.Canvas) {
	if ch.xMax != nil {
		ch.p.X.Max = *ch.xMax
	}
	saneAxes(ch.p)
	switch {
	case len(ch.items) == 0:
		ch.p.Draw(dc)
	case ch.legendRight:
		lw := legendColumn(ch.items)
		ch.p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		drawLegendColumns(draw.Crop(dc, dc.Size().X-lw+vg.Points(10), 0, 0, -vg.Points(30)), [][]legendItem{ch.items})
	default:
		cols, h := legendBelow(ch.items, dc.Size().X-vg.Points(40))
		ch.p.Draw(draw.Crop(dc, 0, 0, h, 0))
		drawLegendColumns(draw.Crop(dc, vg.Points(40), 0, 0, -(dc.Size().Y-h)), cols)
	}
}

// figure is one plot file of a report.
type figure struct {
	Name    string // file stem: Name.svg, Name.png
	Title   string
	Caption string
	W, H    vg.Length
	Draw    func(dc draw.Canvas)
}

func (f figure) render(format string) ([]byte, error) {
	var buf bytes.Buffer
	switch format {
	case "svg":
		c := vgsvg.New(f.W, f.H)
		f.Draw(draw.New(c))
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("drawing %s.svg: %w", f.Name, err)
		}
		return fixSVGFonts(buf.Bytes()), nil
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(f.W, f.H), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
		f.Draw(draw.New(c))
		// Fast compression: twice as quick as the default for files 3% larger.
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, c.Image()); err != nil {
			return nil, fmt.Errorf("drawing %s.png: %w", f.Name, err)
		}
		return buf.Bytes(), nil
	}
	return nil, fmt.Errorf("unknown plot format %q", format)
}

// fixSVGFonts gives the SVG's font family fallbacks: the layout was measured with Liberation
// Sans, which is metric-compatible with Arial, so a viewer without it still fits the text.
func fixSVGFonts(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// --- plotters ---

// lineOf returns a line through the points with the colour, width and dashes.
func lineOf(xys plotter.XYs, c color.Color, width float64, dashes ...float64) *plotter.Line {
	l := &plotter.Line{XYs: xys}
	l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(width)}
	for _, d := range dashes {
		l.LineStyle.Dashes = append(l.LineStyle.Dashes, vg.Points(d))
	}
	return l
}

// pointsOf returns scatter points with the colour, radius and shape.
func pointsOf(xys plotter.XYs, c color.Color, r float64, shape draw.GlyphDrawer) *plotter.Scatter {
	return &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(r), Shape: shape}}
}

// band fills the area between two curves over the same x values.
type band struct {
	xs, lo, hi []float64
	color      color.Color
}

func (b *band) Plot(c draw.Canvas, p *plot.Plot) {
	if len(b.xs) == 0 {
		return
	}
	tx, ty := p.Transforms(&c)
	pts := make([]vg.Point, 0, 2*len(b.xs))
	for i, x := range b.xs {
		pts = append(pts, vg.Point{X: tx(x), Y: ty(b.hi[i])})
	}
	for i := len(b.xs) - 1; i >= 0; i-- {
		pts = append(pts, vg.Point{X: tx(b.xs[i]), Y: ty(b.lo[i])})
	}
	c.FillPolygon(b.color, c.ClipPolygonXY(pts))
}

func (b *band) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, x := range b.xs {
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin, ymax = math.Min(ymin, b.lo[i]), math.Max(ymax, b.hi[i])
	}
	return
}

func (b *band) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := r.Size().Y
	c.FillPolygon(b.color, []vg.Point{{X: r.Min.X, Y: r.Min.Y + h/4}, {X: r.Max.X, Y: r.Min.Y + h/4},
		{X: r.Max.X, Y: r.Max.Y - h/4}, {X: r.Min.X, Y: r.Max.Y - h/4}})
}

// bars draws vertical bars: bar i spans [x[i]-w/2+off, x[i]+w/2+off] and [base[i], top[i]]
// in data units; a base below the axis minimum starts at the axis.
type bars struct {
	xs, base, top []float64
	width, offset float64
	color         color.Color
	outline       color.Color
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for i, x := range b.xs {
		if b.top[i] <= b.base[i] {
			continue
		}
		lo := math.Max(b.base[i], p.Y.Min)
		x0, x1 := tx(x+b.offset-b.width/2), tx(x+b.offset+b.width/2)
		y0, y1 := ty(lo), ty(b.top[i])
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
		if b.outline != nil {
			c.StrokeLines(draw.LineStyle{Color: b.outline, Width: vg.Points(0.6)}, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, x := range b.xs {
		xmin = math.Min(xmin, x+b.offset-b.width/2)
		xmax = math.Max(xmax, x+b.offset+b.width/2)
		if b.top[i] > b.base[i] {
			ymin, ymax = math.Min(ymin, b.base[i]), math.Max(ymax, b.top[i])
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 1
	}
	return
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pts := []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
	c.FillPolygon(b.color, pts)
}

// vmarks draws vertical lines at x values across the data area, with optional labels at
// the top (events on a time axis: faults, crashes, failovers).
type vmarks struct {
	xs     []float64
	labels []string
	style  draw.LineStyle
	text   draw.TextStyle
}

func newVMarks(c color.Color) *vmarks {
	return &vmarks{style: draw.LineStyle{Color: c, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}},
		text: draw.TextStyle{Color: c, Font: fontOf(8.5), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}}
}

func (m *vmarks) Plot(c draw.Canvas, p *plot.Plot) {
	tx, _ := p.Transforms(&c)
	for i, x := range m.xs {
		X := tx(x)
		if !c.ContainsX(X) {
			continue
		}
		c.StrokeLine2(m.style, X, c.Min.Y, X, c.Max.Y)
		if i < len(m.labels) && m.labels[i] != "" {
			// A label that would run past the data area goes to the left of its line.
			ts, at := m.text, X+vg.Points(2)
			if at+ts.Width(m.labels[i]) > c.Max.X {
				ts.XAlign, at = draw.XRight, X-vg.Points(2)
			}
			c.FillText(ts, vg.Point{X: at, Y: c.Max.Y - vg.Points(2) - vg.Length(i%3)*vg.Points(10)}, m.labels[i])
		}
	}
}

func (m *vmarks) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(m.style, x, c.Min.Y, x, c.Max.Y)
}

// hline draws a horizontal line across the data area at y, with a label above its right end.
type hline struct {
	y     float64
	label string
	style draw.LineStyle
	text  draw.TextStyle
}

func newHLine(y float64, label string, c color.Color) *hline {
	return &hline{y: y, label: label, style: draw.LineStyle{Color: c, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}},
		text: draw.TextStyle{Color: c, Font: fontOf(9), XAlign: draw.XRight, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}}
}

func (h *hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, ty := p.Transforms(&c)
	Y := ty(h.y)
	if !c.ContainsY(Y) {
		return
	}
	c.StrokeLine2(h.style, c.Min.X, Y, c.Max.X, Y)
	if h.label != "" {
		c.FillText(h.text, vg.Point{X: c.Max.X - vg.Points(3), Y: Y + vg.Points(2)}, h.label)
	}
}

func (h *hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

func (h *hline) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// shade fills the x range [from, to] of the data area (a phase: healing), labelled at the
// top.
type shade struct {
	from, to float64
	label    string
	color    color.Color
	text     draw.TextStyle
}

func newShade(from, to float64, label string) *shade {
	return &shade{from: from, to: to, label: label, color: color.RGBA{0xf1, 0xf1, 0xe8, 0xff},
		text: draw.TextStyle{Color: colGrey, Font: fontOf(8.5), XAlign: draw.XRight, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}}
}

func (s *shade) Plot(c draw.Canvas, p *plot.Plot) {
	tx, _ := p.Transforms(&c)
	x0, x1 := max(tx(s.from), c.Min.X), min(tx(s.to), c.Max.X)
	if x1 <= x0 {
		return
	}
	c.FillPolygon(s.color, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	c.FillText(s.text, vg.Point{X: x1 - vg.Points(3), Y: c.Max.Y - vg.Points(2)}, s.label)
}

// note writes text at a fixed position of the data area (fractions of its width and
// height), for plots without data ("no redeliveries").
type note struct {
	fx, fy float64
	text   string
	style  draw.TextStyle
}

func newNote(text string) *note {
	return &note{fx: 0.5, fy: 0.5, text: text, style: draw.TextStyle{Color: colGrey, Font: fontOf(11),
		XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}}
}

func (n *note) Plot(c draw.Canvas, p *plot.Plot) {
	pt := vg.Point{X: c.Min.X + vg.Length(n.fx)*(c.Max.X-c.Min.X), Y: c.Min.Y + vg.Length(n.fy)*(c.Max.Y-c.Min.Y)}
	c.FillText(n.style, pt, n.text)
}

// textAt writes labels at data points (bar values).
type textAt struct {
	xs, ys []float64
	labels []string
	style  draw.TextStyle
}

func newTextAt(c color.Color) *textAt {
	return &textAt{style: draw.TextStyle{Color: c, Font: fontOf(8.5), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}}
}

func (t *textAt) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for i := range t.xs {
		pt := vg.Point{X: tx(t.xs[i]), Y: ty(t.ys[i]) + vg.Points(1.5)}
		if c.Contains(pt) {
			c.FillText(t.style, pt, t.labels[i])
		}
	}
}

// glyphThumb is a legend thumbnail showing one glyph.
type glyphThumb draw.GlyphStyle

func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle(g), c.Center())
}

// lineThumb is a legend thumbnail showing a line style.
type lineThumb draw.LineStyle

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}

// fillThumb is a legend thumbnail showing a filled box.
type fillThumb struct{ c color.Color }

func (f fillThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := r.Size().Y
	c.FillPolygon(f.c, []vg.Point{{X: r.Min.X, Y: r.Min.Y + h/5}, {X: r.Max.X, Y: r.Min.Y + h/5},
		{X: r.Max.X, Y: r.Max.Y - h/5}, {X: r.Min.X, Y: r.Max.Y - h/5}})
}

// gridDraw draws charts as tiles, rows × cols, with one shared legend below them.
func gridDraw(dc draw.Canvas, charts []*chart, cols int, legend *chart) {
	rows := (len(charts) + cols - 1) / cols
	var lcols [][]legendItem
	var lh vg.Length
	if legend != nil {
		lcols, lh = legendBelow(legend.items, dc.Size().X-vg.Points(40))
	}
	area := draw.Crop(dc, 0, 0, lh, 0)
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(18), PadY: vg.Points(12), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	ps := make([][]*plot.Plot, rows)
	for r := range ps {
		ps[r] = make([]*plot.Plot, cols)
		for c := range ps[r] {
			if i := r*cols + c; i < len(charts) {
				ps[r][c] = charts[i].p
			}
		}
	}
	// Fill the background once: empty tiles stay white.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	for _, ch := range charts {
		if ch.xMax != nil {
			ch.p.X.Max = *ch.xMax
		}
		saneAxes(ch.p)
	}
	for r := range ps {
		for c := range ps[r] {
			if ps[r][c] != nil {
				ps[r][c].Draw(t.At(area, c, r))
			}
		}
	}
	if lh > 0 {
		drawLegendColumns(draw.Crop(dc, vg.Points(40), 0, 0, -(dc.Size().Y-lh)), lcols)
	}
}

package configfile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Kind is the shape of a Node.
type Kind int

// The node kinds. A scalar holds an int64, float64, bool or string in
// Value; a null holds nil.
const (
	Null Kind = iota
	Scalar
	Map
	Seq
	// broken marks a value whose template failed to render; its problem
	// is reported once, by the renderer, and decoding skips it.
	broken
)

// Pos is a 1-based line and column in the config file; zero for values
// that did not come from the file (CLI overrides, sweep values).
type Pos struct{ Line, Col int }

// String is "line:col", or "" for a zero Pos.
func (p Pos) String() string {
	if p.Line == 0 {
		return ""
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// Node is one YAML value with the position it was written at. Maps keep
// their keys in file order. Nodes are trees (aliases are copied), so a
// Clone is independent of its original.
type Node struct {
	Kind  Kind
	Value any // Scalar: int64, float64, bool or string
	Keys  []Key
	Items []*Node // Seq items
	Pos   Pos
}

// Key is one map entry.
type Key struct {
	Name  string
	Pos   Pos
	Value *Node
}

// Get returns the value under name, or nil.
func (n *Node) Get(name string) *Node {
	if n == nil || n.Kind != Map {
		return nil
	}
	for _, k := range n.Keys {
		if k.Name == name {
			return k.Value
		}
	}
	return nil
}

// KeyPos returns where key name is written, or the node's own position.
func (n *Node) KeyPos(name string) Pos {
	if n != nil {
		for _, k := range n.Keys {
			if k.Name == name {
				return k.Pos
			}
		}
		return n.Pos
	}
	return Pos{}
}

// Set replaces or appends the entry name of a map node.
func (n *Node) Set(name string, v *Node) {
	for i, k := range n.Keys {
		if k.Name == name {
			n.Keys[i].Value = v
			return
		}
	}
	n.Keys = append(n.Keys, Key{Name: name, Pos: v.Pos, Value: v})
}

// Delete removes the entry name of a map node and returns its value.
func (n *Node) Delete(name string) *Node {
	if n == nil || n.Kind != Map {
		return nil
	}
	for i, k := range n.Keys {
		if k.Name == name {
			n.Keys = slices.Delete(n.Keys, i, i+1)
			return k.Value
		}
	}
	return nil
}

// Clone returns a deep copy.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Keys != nil {
		c.Keys = make([]Key, len(n.Keys))
		for i, k := range n.Keys {
			c.Keys[i] = Key{Name: k.Name, Pos: k.Pos, Value: k.Value.Clone()}
		}
	}
	if n.Items != nil {
		c.Items = make([]*Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = it.Clone()
		}
	}
	return &c
}

// newMap returns an empty map node.
func newMap(p Pos) *Node { return &Node{Kind: Map, Pos: p} }

// FromValue builds a node from a Go value: nil, bool, integers, floats,
// strings, []any, []string, map[string]any (keys sorted) and *Node.
func FromValue(v any) *Node {
	switch x := v.(type) {
	case nil:
		return &Node{Kind: Null}
	case *Node:
		return x.Clone()
	case bool:
		return &Node{Kind: Scalar, Value: x}
	case int:
		return &Node{Kind: Scalar, Value: int64(x)}
	case int64:
		return &Node{Kind: Scalar, Value: x}
	case float64:
		return &Node{Kind: Scalar, Value: x}
	case string:
		return &Node{Kind: Scalar, Value: x}
	case []string:
		n := &Node{Kind: Seq, Items: []*Node{}}
		for _, s := range x {
			n.Items = append(n.Items, FromValue(s))
		}
		return n
	case []any:
		n := &Node{Kind: Seq, Items: []*Node{}}
		for _, e := range x {
			n.Items = append(n.Items, FromValue(e))
		}
		return n
	case map[string]any:
		n := newMap(Pos{})
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			n.Set(k, FromValue(x[k]))
		}
		return n
	case map[string]float64:
		m := make(map[string]any, len(x))
		for k, f := range x {
			m[k] = f
		}
		return FromValue(m)
	}
	return &Node{Kind: Scalar, Value: fmt.Sprint(v)}
}

// Interface converts the node to plain Go values: map[string]any, []any,
// int64, float64, bool, string or nil.
func (n *Node) Interface() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Map:
		m := make(map[string]any, len(n.Keys))
		for _, k := range n.Keys {
			m[k.Name] = k.Value.Interface()
		}
		return m
	case Seq:
		s := make([]any, len(n.Items))
		for i, it := range n.Items {
			s[i] = it.Interface()
		}
		return s
	case Scalar:
		return n.Value
	}
	return nil
}

// scalarText renders a scalar the way YAML would read it back.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// parseYAML parses one YAML document into a Node tree. An empty document
// is an empty map.
func parseYAML(data []byte) (*Node, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, err
	}
	if len(f.Docs) > 1 {
		return nil, fmt.Errorf("the config file holds %d YAML documents; it must hold one", len(f.Docs))
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return newMap(Pos{Line: 1, Col: 1}), nil
	}
	c := converter{anchors: map[string]*Node{}}
	n, err := c.convert(f.Docs[0].Body, 0)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// maxDepth bounds nesting, so a hostile file cannot exhaust the stack.
const maxDepth = 64

// maxNodes bounds the tree size after alias expansion ("billion laughs").
const maxNodes = 20_000

type converter struct {
	anchors map[string]*Node
	count   int
}

func posOf(n ast.Node) Pos {
	if t := n.GetToken(); t != nil && t.Position != nil {
		return Pos{Line: t.Position.Line, Col: t.Position.Column}
	}
	return Pos{}
}

func (c *converter) convert(n ast.Node, depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: nesting deeper than %d levels", posOf(n), maxDepth)
	}
	c.count++
	if c.count > maxNodes {
		return nil, fmt.Errorf("the config file expands to more than %d values", maxNodes)
	}
	p := posOf(n)
	switch x := n.(type) {
	case nil:
		return &Node{Kind: Null}, nil
	case *ast.NullNode:
		return &Node{Kind: Null, Pos: p}, nil
	case *ast.StringNode:
		return &Node{Kind: Scalar, Value: x.Value, Pos: p}, nil
	case *ast.LiteralNode:
		return &Node{Kind: Scalar, Value: x.Value.Value, Pos: p}, nil
	case *ast.IntegerNode:
		switch v := x.Value.(type) {
		case int64:
			return &Node{Kind: Scalar, Value: v, Pos: p}, nil
		case uint64:
			if v > math.MaxInt64 {
				return nil, fmt.Errorf("%s: integer %d is too large", p, v)
			}
			return &Node{Kind: Scalar, Value: int64(v), Pos: p}, nil
		}
		return nil, fmt.Errorf("%s: unreadable integer", p)
	case *ast.FloatNode:
		return &Node{Kind: Scalar, Value: x.Value, Pos: p}, nil
	case *ast.InfinityNode:
		return &Node{Kind: Scalar, Value: x.GetToken().Value, Pos: p}, nil
	case *ast.NanNode:
		return &Node{Kind: Scalar, Value: x.GetToken().Value, Pos: p}, nil
	case *ast.BoolNode:
		return &Node{Kind: Scalar, Value: x.Value, Pos: p}, nil
	case *ast.TagNode:
		return c.convert(x.Value, depth+1)
	case *ast.AnchorNode:
		v, err := c.convert(x.Value, depth+1)
		if err != nil {
			return nil, err
		}
		c.anchors[x.Name.GetToken().Value] = v
		return v, nil
	case *ast.AliasNode:
		name := x.Value.GetToken().Value
		v, ok := c.anchors[name]
		if !ok {
			return nil, fmt.Errorf("%s: unknown alias *%s", p, name)
		}
		c.count += countNodes(v)
		if c.count > maxNodes {
			return nil, fmt.Errorf("the config file expands to more than %d values", maxNodes)
		}
		return v.Clone(), nil
	case *ast.MappingNode:
		m := newMap(p)
		for _, mv := range x.Values {
			if err := c.addEntry(m, mv, depth); err != nil {
				return nil, err
			}
		}
		return m, nil
	case *ast.MappingValueNode:
		m := newMap(p)
		if err := c.addEntry(m, x, depth); err != nil {
			return nil, err
		}
		return m, nil
	case *ast.SequenceNode:
		s := &Node{Kind: Seq, Pos: p, Items: []*Node{}}
		for _, it := range x.Values {
			v, err := c.convert(it, depth+1)
			if err != nil {
				return nil, err
			}
			s.Items = append(s.Items, v)
		}
		return s, nil
	case *ast.CommentGroupNode:
		return &Node{Kind: Null, Pos: p}, nil
	}
	return nil, fmt.Errorf("%s: unsupported YAML construct (%s)", p, n.Type())
}

// addEntry adds one "key: value" to m; merge keys ("<<: *x") are refused.
func (c *converter) addEntry(m *Node, mv *ast.MappingValueNode, depth int) error {
	kp := posOf(mv.Key)
	if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
		return fmt.Errorf("%s: YAML merge keys (<<) are not supported", kp)
	}
	kn, err := c.convert(mv.Key, depth+1)
	if err != nil {
		return err
	}
	if kn.Kind != Scalar {
		return fmt.Errorf("%s: a map key must be a plain value", kp)
	}
	name := scalarText(kn.Value)
	if m.Get(name) != nil || slices.ContainsFunc(m.Keys, func(k Key) bool { return k.Name == name }) {
		return fmt.Errorf("%s: duplicate key %q", kp, name)
	}
	v, err := c.convert(mv.Value, depth+1)
	if err != nil {
		return err
	}
	m.Keys = append(m.Keys, Key{Name: name, Pos: kp, Value: v})
	return nil
}

func countNodes(n *Node) int {
	c := 1
	for _, k := range n.Keys {
		c += countNodes(k.Value)
	}
	for _, it := range n.Items {
		c += countNodes(it)
	}
	return c
}

// describe names a node's kind for error messages.
func describe(n *Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case Map:
		return "a mapping"
	case Seq:
		return "a list"
	case Null:
		return "null"
	}
	switch n.Value.(type) {
	case string:
		return strconv.Quote(n.Value.(string))
	}
	return strings.TrimSpace(scalarText(n.Value))
}

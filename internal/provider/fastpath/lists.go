package fastpath

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

// List is a list data source whose items the provider's Read may hand to
// Items instead of its state: Attribute is the list nested attribute that
// holds them.
type List struct {
	TypeName  string
	Attribute string
}

// EncodeLists returns server, the framework's, with in front of it what
// writes the items of lists into their data sources' answers itself.
//
// Through the framework, a list data source's state is built whole before
// it is encoded: every item a model, then a value of the framework's, then
// one of terraform-plugin-go's, each a tree of maps and boxed values, and
// the framework walks the schema for every attribute of every item. Listing
// 20,000 subscriptions held 683 MB at its peak and allocated 5.6 GB, where
// the answer is 8.5 MB of msgpack. Here the Read finds Items in its
// context, hands each item to it as it converts it (a model of the items'
// object type, with States' mapping of its fields), and sets the attribute
// to an empty list; each item is encoded once, with the encoder the
// framework's answer is made with, and dropped, and the encoded items take
// the empty list's place in the answer: the same bytes, as
// TestListDataSources_sameAnswerWithAndWithoutFastpath (package provider)
// shows.
//
// An answer with an error, or whose Read did not use Items, is the
// framework's as it is.
//
// Delete this once the framework encodes a list nested attribute of 20,000
// items in about the memory of its answer: BenchmarkListDataSources (in
// package provider) then measures its rows without_fastpath at about its
// rows served.
func EncodeLists(server tfprotov6.ProviderServer, states *States, lists ...List) tfprotov6.ProviderServer {
	full, ok := server.(protocol.Server)
	if !ok {
		return server
	}
	s := &listServer{Server: full, states: states, lists: map[string]string{}}
	for _, l := range lists {
		s.lists[l.TypeName] = l.Attribute
	}
	return s
}

type listServer struct {
	protocol.Server
	states *States
	lists  map[string]string // the items' attribute, by type name
}

// Unwrap is the server behind: the speed-ups' tests reach theirs through it.
func (s *listServer) Unwrap() tfprotov6.ProviderServer { return s.Server }

func (s *listServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	attribute, ok := s.lists[req.TypeName]
	if !ok {
		return s.Server.ReadDataSource(ctx, req)
	}
	items := &Items{states: s.states}
	resp, err := s.Server.ReadDataSource(context.WithValue(ctx, itemsKey{}, items), req)
	if err != nil || resp == nil || resp.State == nil || !items.used() || hasError(resp.Diagnostics) {
		return resp, err
	}
	state, err := items.spliceInto(resp.State.MsgPack, attribute)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  "Provider error: the list could not be written",
			Detail:   fmt.Sprintf("The provider could not write the items of %s into its answer: %s. Please report this issue to the provider developers.", req.TypeName, err),
		})
		resp.State = nil
		return resp, nil
	}
	resp.State.MsgPack = state
	return resp, nil
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

type itemsKey struct{}

// Items is where a list data source's Read hands its items, when the
// speed-up serves it: ItemsOf its context. Its methods are safe for
// concurrent use.
type Items struct {
	states *States

	mu       sync.Mutex
	handed   bool
	count    int
	expected int // items to come, as Expect said
	encoded  bytes.Buffer
}

// ItemsOf is the Items of a Read's context; nil when the framework is to
// store the items, as without the speed-up.
func ItemsOf(ctx context.Context) *Items {
	items, _ := ctx.Value(itemsKey{}).(*Items)
	return items
}

// Expect says that n items are to come: the first one's size, n times
// over and an eighth more, is the room kept for them, so that the encoded
// items are not copied each time they outgrow it (a list's items differ
// little in size).
func (i *Items) Expect(n int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.expected = n
}

// Add encodes model, a value of object type typ (a model struct, as
// State.Set takes it), as the next item.
func (i *Items) Add(ctx context.Context, typ attr.Type, model any) diag.Diagnostics {
	value, diags := i.states.objectValue(ctx, typ, model)
	if diags.HasError() {
		return diags
	}
	dv, err := tfprotov6.NewDynamicValue(value.Type(), value)
	if err != nil {
		return errorDiags("Could not encode an item", err)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.handed = true
	if i.count == 0 && i.expected > 1 {
		i.encoded.Grow(len(dv.MsgPack) * i.expected * 9 / 8)
	}
	i.count++
	i.encoded.Write(dv.MsgPack)
	return nil
}

func (i *Items) used() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.handed
}

// emptyArray is msgpack's empty array: the empty list the Read's state
// holds in the items' place.
const emptyArray = 0x90

// spliceInto returns state, a msgpack object, with the items in place of
// its attribute's empty list.
func (i *Items) spliceInto(state []byte, attribute string) ([]byte, error) {
	start, end, err := attributeValue(state, attribute)
	if err != nil {
		return nil, err
	}
	if end-start != 1 || state[start] != emptyArray {
		return nil, fmt.Errorf("%s holds %d bytes, not the empty list the items take the place of", attribute, end-start)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	var header bytes.Buffer
	if err := msgpack.NewEncoder(&header).EncodeArrayLen(i.count); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(state)-1+header.Len()+i.encoded.Len())
	out = append(out, state[:start]...)
	out = append(out, header.Bytes()...)
	out = append(out, i.encoded.Bytes()...)
	i.encoded = bytes.Buffer{} // copied: not to be held while the answer is sent
	return append(out, state[end:]...), nil
}

// attributeValue is where the value of attribute lies in state, a msgpack
// map: its first byte and the one after its last.
func attributeValue(state []byte, attribute string) (start, end int, err error) {
	r := bytes.NewReader(state)
	dec := msgpack.NewDecoder(r)
	n, err := dec.DecodeMapLen()
	if err != nil {
		return 0, 0, err
	}
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return 0, 0, err
		}
		start = len(state) - r.Len()
		if err := dec.Skip(); err != nil {
			return 0, 0, err
		}
		if key == attribute {
			return start, len(state) - r.Len(), nil
		}
	}
	return 0, 0, errors.New("the state has no attribute " + attribute)
}

// objectValue is model as a value of typ, an object type: through the
// model's mapping, or the framework's conversion when it has none.
func (s *States) objectValue(ctx context.Context, typ attr.Type, model any) (tftypes.Value, diag.Diagnostics) {
	objType, ok := typ.(attr.TypeWithAttributeTypes)
	if !ok {
		return tftypes.Value{}, errorDiags("Could not encode an item", fmt.Errorf("%s is not an object type", typ))
	}
	v := reflect.Indirect(reflect.ValueOf(model))
	if v.Kind() == reflect.Struct {
		if m := s.mapping(ctx, typeOnly{typ}, v.Type()); !m.framework {
			return m.value(ctx, v)
		}
	}
	obj, diags := types.ObjectValueFrom(ctx, objType.AttributeTypes(), model)
	if diags.HasError() {
		return tftypes.Value{}, diags
	}
	value, err := obj.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.Value{}, errorDiags("Could not encode an item", err)
	}
	return value, nil
}

// typeOnly is a schema of type typ, for States' mapping.
type typeOnly struct{ typ attr.Type }

func (t typeOnly) Type() attr.Type { return t.typ }

package hf

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// clsSep is the "BertProcessing" post-processor, and "RobertaProcessing"
// for a single sequence: cls.id, the ids, sep.id. Roberta's trim_offsets
// and add_prefix_space only change offsets, which this package does not
// report.
type clsSep struct {
	cls, sep int
}

// specialTokenSpec is a post-processor's ["token", id] pair.
type specialTokenSpec struct {
	token string
	id    int
}

func parseSpecialToken(path string, raw json.RawMessage) (specialTokenSpec, error) {
	var pair [2]json.RawMessage
	var st specialTokenSpec
	if raw == nil {
		return st, fmt.Errorf("%s: missing", path)
	}
	err := json.Unmarshal(raw, &pair)
	if err == nil {
		err = json.Unmarshal(pair[0], &st.token)
	}
	if err == nil {
		err = json.Unmarshal(pair[1], &st.id)
	}
	if err != nil {
		return st, fmt.Errorf("%s: want [token, id]: %w", path, err)
	}
	return st, nil
}

// clsSepSpec is the JSON form of both post-processors; trim_offsets and
// add_prefix_space (Roberta) only affect offsets.
type clsSepSpec struct {
	Type           string          `json:"type"`
	Sep            json.RawMessage `json:"sep"`
	Cls            json.RawMessage `json:"cls"`
	TrimOffsets    *bool           `json:"trim_offsets"`
	AddPrefixSpace *bool           `json:"add_prefix_space"`
}

func parseClsSep(path, typ string, raw json.RawMessage) (clsSep, error) {
	var spec clsSepSpec
	if err := decodeStrict(path, typ, raw, &spec); err != nil {
		return clsSep{}, err
	}
	sep, errSep := parseSpecialToken(path+".sep", spec.Sep)
	cls, errCls := parseSpecialToken(path+".cls", spec.Cls)
	if err := errors.Join(errSep, errCls); err != nil {
		return clsSep{}, err
	}
	return clsSep{cls: cls.id, sep: sep.id}, nil
}

// requireFields reports, all at once, the fields a spec must have (as in
// the reference, which rejects the file without them) but lacks. present
// maps each required field name to whether the spec has it.
func requireFields(path string, present map[string]bool) error {
	var missing []string
	for name, ok := range present {
		if !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	errs := make([]error, len(missing))
	for i, name := range missing {
		errs[i] = fmt.Errorf("%s.%s: missing (required)", path, name)
	}
	return errors.Join(errs...)
}

func newBertProcessing(path string, raw json.RawMessage) (postProcessor, error) {
	p, err := parseClsSep(path, "BertProcessing", raw)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func newRobertaProcessing(path string, raw json.RawMessage) (postProcessor, error) {
	p, err := parseClsSep(path, "RobertaProcessing", raw)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (p clsSep) process(ids []int) []int {
	out := make([]int, 0, len(ids)+2)
	out = append(out, p.cls)
	out = append(out, ids...)
	return append(out, p.sep)
}

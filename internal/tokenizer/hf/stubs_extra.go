package hf

import (
	"encoding/json"
	"errors"
)

// Placeholders for component builders not written yet. Each one is deleted
// when its real builder lands; the kinds tables in component.go stay as
// they are.

var errNotYetExtra = errors.New("not implemented yet")

func newLowercase(string, json.RawMessage) (normalizer, error)      { return nil, errNotYetExtra }
func newStripAccents(string, json.RawMessage) (normalizer, error)   { return nil, errNotYetExtra }
func newBertNormalizer(string, json.RawMessage) (normalizer, error) { return nil, errNotYetExtra }
func newMetaspacePreTokenizer(string, json.RawMessage) (preTokenizer, error) {
	return nil, errNotYetExtra
}
func newWhitespace(string, json.RawMessage) (preTokenizer, error)         { return nil, errNotYetExtra }
func newWhitespaceSplit(string, json.RawMessage) (preTokenizer, error)    { return nil, errNotYetExtra }
func newBertPreTokenizer(string, json.RawMessage) (preTokenizer, error)   { return nil, errNotYetExtra }
func newDigits(string, json.RawMessage) (preTokenizer, error)             { return nil, errNotYetExtra }
func newPunctuation(string, json.RawMessage) (preTokenizer, error)        { return nil, errNotYetExtra }
func newWordPiece(string, json.RawMessage) (model, error)                 { return nil, errNotYetExtra }
func newUnigram(string, json.RawMessage) (model, error)                   { return nil, errNotYetExtra }
func newMetaspaceDecoder(string, json.RawMessage) (decoder, error)        { return nil, errNotYetExtra }
func newWordPieceDecoder(string, json.RawMessage) (decoder, error)        { return nil, errNotYetExtra }
func newBertProcessing(string, json.RawMessage) (postProcessor, error)    { return nil, errNotYetExtra }
func newRobertaProcessing(string, json.RawMessage) (postProcessor, error) { return nil, errNotYetExtra }

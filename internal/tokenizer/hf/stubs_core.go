package hf

import (
	"encoding/json"
	"errors"
)

// Placeholders for component builders not written yet. Each one is deleted
// when its real builder lands; the kinds tables in component.go stay as
// they are.

var errNotYet = errors.New("not implemented yet")

func newNormalizerSequence(string, json.RawMessage) (normalizer, error)        { return nil, errNotYet }
func newNFC(string, json.RawMessage) (normalizer, error)                       { return nil, errNotYet }
func newNFKC(string, json.RawMessage) (normalizer, error)                      { return nil, errNotYet }
func newNFD(string, json.RawMessage) (normalizer, error)                       { return nil, errNotYet }
func newNFKD(string, json.RawMessage) (normalizer, error)                      { return nil, errNotYet }
func newReplaceNormalizer(string, json.RawMessage) (normalizer, error)         { return nil, errNotYet }
func newPrepend(string, json.RawMessage) (normalizer, error)                   { return nil, errNotYet }
func newStripNormalizer(string, json.RawMessage) (normalizer, error)           { return nil, errNotYet }
func newPreTokenizerSequence(string, json.RawMessage) (preTokenizer, error)    { return nil, errNotYet }
func newByteLevelPreTokenizer(string, json.RawMessage) (preTokenizer, error)   { return nil, errNotYet }
func newSplit(string, json.RawMessage) (preTokenizer, error)                   { return nil, errNotYet }
func newBPE(string, json.RawMessage) (model, error)                            { return nil, errNotYet }
func newDecoderSequence(string, json.RawMessage) (decoder, error)              { return nil, errNotYet }
func newByteLevelDecoder(string, json.RawMessage) (decoder, error)             { return nil, errNotYet }
func newByteFallbackDecoder(string, json.RawMessage) (decoder, error)          { return nil, errNotYet }
func newFuseDecoder(string, json.RawMessage) (decoder, error)                  { return nil, errNotYet }
func newStripDecoder(string, json.RawMessage) (decoder, error)                 { return nil, errNotYet }
func newReplaceDecoder(string, json.RawMessage) (decoder, error)               { return nil, errNotYet }
func newPostProcessorSequence(string, json.RawMessage) (postProcessor, error)  { return nil, errNotYet }
func newByteLevelPostProcessor(string, json.RawMessage) (postProcessor, error) { return nil, errNotYet }
func newTemplateProcessing(string, json.RawMessage) (postProcessor, error)     { return nil, errNotYet }

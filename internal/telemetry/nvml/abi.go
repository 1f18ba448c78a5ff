package nvml

// The C types and constants of nvml.h the collector uses, laid out as the
// C compiler lays them out on 64-bit Linux (TestABILayout checks sizes and
// offsets against the header's).

// ret is nvmlReturn_t.
type ret int32

// nvmlReturn_t values.
const (
	retSuccess           ret = 0
	retNotFound          ret = 6
	retInsufficientSize  ret = 7
	retLibraryNotFound   ret = 12
	retFunctionNotFound  ret = 13
	temperatureGPU           = 0  // NVML_TEMPERATURE_GPU
	perfPolicyPower          = 0  // NVML_PERF_POLICY_POWER
	deviceNameBufferSize     = 96 // NVML_DEVICE_NAME_V2_BUFFER_SIZE
	deviceUUIDBufferSize     = 96 // NVML_DEVICE_UUID_V2_BUFFER_SIZE
)

// handle is nvmlDevice_t (an opaque pointer).
type handle uintptr

// pciInfo is nvmlPciInfo_t (v3).
type pciInfo struct {
	BusIDLegacy    [16]byte
	Domain         uint32
	Bus            uint32
	Device         uint32
	PCIDeviceID    uint32
	PCISubSystemID uint32
	BusID          [32]byte
}

// utilization is nvmlUtilization_t.
type utilization struct{ GPU, Memory uint32 }

// memory is nvmlMemory_t (v1), in bytes.
type memory struct{ Total, Free, Used uint64 }

// processSample is nvmlProcessUtilizationSample_t.
type processSample struct {
	PID       uint32
	TimeStamp uint64
	SMUtil    uint32
	MemUtil   uint32
	EncUtil   uint32
	DecUtil   uint32
}

// violationTime is nvmlViolationTime_t, in ns.
type violationTime struct{ ReferenceTime, ViolationTime uint64 }

// library is the bound functions of libnvidia-ml.so.1. An optional one
// (see symbols) is nil when the driver is too old to have it.
type library struct {
	init                     func() ret
	shutdown                 func() ret
	errorString              func(ret) string
	deviceGetCount           func(*uint32) ret
	deviceGetHandleByIndex   func(uint32, *handle) ret
	deviceGetUUID            func(handle, *byte, uint32) ret
	deviceGetName            func(handle, *byte, uint32) ret
	deviceGetPciInfo         func(handle, *pciInfo) ret
	deviceGetPowerUsage      func(handle, *uint32) ret
	deviceGetTotalEnergy     func(handle, *uint64) ret
	deviceGetUtilization     func(handle, *utilization) ret
	deviceGetMemoryInfo      func(handle, *memory) ret
	deviceGetTemperature     func(handle, uint32, *uint32) ret
	deviceGetDecoderUtil     func(handle, *uint32, *uint32) ret
	deviceGetEncoderUtil     func(handle, *uint32, *uint32) ret
	deviceGetJpgUtil         func(handle, *uint32, *uint32) ret
	deviceGetProcessUtil     func(handle, *processSample, *uint32, uint64) ret
	deviceGetViolationStatus func(handle, uint32, *violationTime) ret
}

// symbol is one C function of the library and the field it binds.
type symbol struct {
	name     string
	fn       any // a pointer to a library field
	optional bool
}

// symbols lists every function library binds, by its versioned C name
// (the _v2/_v3 entry points every driver since R450 exports, which the
// unversioned macros of nvml.h name). Required ones missing make the
// library unusable; optional ones leave their fields out of the samples.
func (l *library) symbols() []symbol {
	return []symbol{
		{"nvmlInit_v2", &l.init, false},
		{"nvmlShutdown", &l.shutdown, false},
		{"nvmlErrorString", &l.errorString, false},
		{"nvmlDeviceGetCount_v2", &l.deviceGetCount, false},
		{"nvmlDeviceGetHandleByIndex_v2", &l.deviceGetHandleByIndex, false},
		{"nvmlDeviceGetUUID", &l.deviceGetUUID, false},
		{"nvmlDeviceGetName", &l.deviceGetName, false},
		{"nvmlDeviceGetPciInfo_v3", &l.deviceGetPciInfo, true},
		{"nvmlDeviceGetPowerUsage", &l.deviceGetPowerUsage, true},
		{"nvmlDeviceGetTotalEnergyConsumption", &l.deviceGetTotalEnergy, true},
		{"nvmlDeviceGetUtilizationRates", &l.deviceGetUtilization, true},
		{"nvmlDeviceGetMemoryInfo", &l.deviceGetMemoryInfo, true},
		{"nvmlDeviceGetTemperature", &l.deviceGetTemperature, true},
		{"nvmlDeviceGetDecoderUtilization", &l.deviceGetDecoderUtil, true},
		{"nvmlDeviceGetEncoderUtilization", &l.deviceGetEncoderUtil, true},
		{"nvmlDeviceGetJpgUtilization", &l.deviceGetJpgUtil, true},
		{"nvmlDeviceGetProcessUtilization", &l.deviceGetProcessUtil, true},
		{"nvmlDeviceGetViolationStatus", &l.deviceGetViolationStatus, true},
	}
}

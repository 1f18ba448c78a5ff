/* A stand-in for libnvidia-ml.so.1 with one GPU and fixed readings, for
   the loader test on machines without a GPU. Its types are nvml.h's (the
   layouts TestABILayout checks). Built by the test with the C compiler. */
#include <string.h>

typedef struct { char busIdLegacy[16]; unsigned int domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]; } pci_t;
typedef struct { unsigned int gpu, memory; } util_t;
typedef struct { unsigned long long total, free, used; } mem_t;
typedef struct { unsigned int pid; unsigned long long timeStamp; unsigned int smUtil, memUtil, encUtil, decUtil; } proc_t;
typedef struct { unsigned long long referenceTime, violationTime; } viol_t;
typedef void *dev_t_;

static int inits;
int nvmlInit_v2(void) { inits++; return 0; }
int nvmlShutdown(void) { inits--; return inits < 0 ? 1 : 0; }
const char *nvmlErrorString(int r) { return r == 3 ? "Not Supported" : "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, dev_t_ *h) { if (i != 0) return 2; *h = (dev_t_)0x1234; return 0; }
int nvmlDeviceGetUUID(dev_t_ h, char *b, unsigned int n) { strncpy(b, "GPU-fake-0001", n); return 0; }
int nvmlDeviceGetName(dev_t_ h, char *b, unsigned int n) { strncpy(b, "NVIDIA Fake H100", n); return 0; }
int nvmlDeviceGetPciInfo_v3(dev_t_ h, pci_t *p) { memset(p, 0, sizeof *p); strcpy(p->busId, "00000000:17:00.0"); p->domain = 0; p->bus = 0x17; return 0; }
int nvmlDeviceGetPowerUsage(dev_t_ h, unsigned int *mw) { *mw = 123456; return 0; }
int nvmlDeviceGetTotalEnergyConsumption(dev_t_ h, unsigned long long *mj) { *mj = 5000000000ULL; return 0; }
int nvmlDeviceGetUtilizationRates(dev_t_ h, util_t *u) { u->gpu = 87; u->memory = 42; return 0; }
int nvmlDeviceGetMemoryInfo(dev_t_ h, mem_t *m) { m->total = 80000000000ULL; m->used = 12500000000ULL; m->free = m->total - m->used; return 0; }
int nvmlDeviceGetTemperature(dev_t_ h, int sensor, unsigned int *t) { if (sensor != 0) return 2; *t = 61; return 0; }
int nvmlDeviceGetDecoderUtilization(dev_t_ h, unsigned int *u, unsigned int *p) { *u = 3; *p = 1000; return 0; }
int nvmlDeviceGetEncoderUtilization(dev_t_ h, unsigned int *u, unsigned int *p) { return 3; } /* Not Supported */
/* nvmlDeviceGetJpgUtilization is absent, as in drivers before it existed. */
int nvmlDeviceGetProcessUtilization(dev_t_ h, proc_t *s, unsigned int *n, unsigned long long last) {
	if (s == 0) { *n = 2; return 7; }
	if (*n < 2) return 7;
	s[0] = (proc_t){.pid = 10, .timeStamp = last + 5, .smUtil = 30};
	s[1] = (proc_t){.pid = 11, .timeStamp = last + 9, .smUtil = 25};
	*n = 2;
	return 0;
}
int nvmlDeviceGetViolationStatus(dev_t_ h, int policy, viol_t *v) { if (policy != 0) return 2; v->referenceTime = 1; v->violationTime = 7000; return 0; }

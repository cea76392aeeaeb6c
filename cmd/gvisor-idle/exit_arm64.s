//go:build linux

#include "textflag.h"

// func exitHandler(): a signal handler (C calling convention, entered by the kernel): exit_group(0).
TEXT ·exitHandler(SB),NOSPLIT|NOFRAME,$0
	MOVD	$0, R0
	MOVD	$94, R8 // SYS_exit_group
	SVC
	UNDEF // not reached

// func exitHandlerPC() uintptr
TEXT ·exitHandlerPC(SB),NOSPLIT,$0-8
	MOVD	$·exitHandler(SB), R0
	MOVD	R0, ret+0(FP)
	RET

//go:build linux

#include "textflag.h"

// func exitHandler(): a signal handler (C calling convention, entered by the kernel): exit_group(0).
TEXT ·exitHandler(SB),NOSPLIT,$0
	MOVL	$0, DI
	MOVL	$231, AX // SYS_exit_group
	SYSCALL
	INT	$3 // not reached

// func exitHandlerPC() uintptr
TEXT ·exitHandlerPC(SB),NOSPLIT,$0-8
	MOVQ	$·exitHandler(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

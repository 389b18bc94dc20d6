// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 6.3: vm_flags_set(); before it, vma->vm_flags was written directly. */
#include <linux/mm.h>

void probe_vm_flags_set(struct vm_area_struct *vma);
void probe_vm_flags_set(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
}

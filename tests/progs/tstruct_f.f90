! tstruct_f: a file view built the MPI-1 way, as older Fortran codes still
! do: MPI_ADDRESS for memory displacements, MPI_TYPE_HVECTOR for the memory
! layout, MPI_TYPE_STRUCT for the file type (names removed in MPI-3.0 but
! exported by both libraries). Each rank writes NB blocks of B integers
! (values rank*1000 + i, never 0) taken from buf(1..B) and buf(2B+1..3B);
! in the file, rank r's blocks are at r*B and (2P + r)*B integers, so the
! integers from P*B to 2P*B stay zero (independent writes: Open MPI's
! collective buffering fills such holes with whatever its buffer held).
! The file type's layout, made again with MPI_TYPE_CREATE_STRUCT, is then
! decoded as a library layered on MPI-IO decodes a type it is given
! (MPI_TYPE_GET_ENVELOPE, MPI_TYPE_GET_CONTENTS): the addresses returned are
! its displacements, 0 and 2*P*B*4 bytes. See 83-fortran.sh.
module tstruct_data
  implicit none
  integer, parameter :: B = 4, NB = 2
  integer, save :: buf(3 * B)
end module

program tstruct_f
  use tstruct_data
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, i, fh, blk, ftype, mtype
  integer :: a0, a1
  integer :: blens(NB), displs(NB), types(NB)
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: adispls(NB), gaddrs(NB)
  integer :: stype, ni, na, nd, comb, gints(NB + 1), gtypes(NB)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, 3 * B
    buf(i) = rank * 1000 + i
  end do
  ! memory: B integers at buf(1) and at buf(2B+1), the stride from MPI_ADDRESS
  call MPI_Address(buf(1), a0, ierr)
  call MPI_Address(buf(2 * B + 1), a1, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call MPI_Type_hvector(NB, B, a1 - a0, MPI_INTEGER, mtype, ierr)
  call MPI_Type_commit(mtype, ierr)
  ! file: a block of B integers, twice, 2*P*B integers apart
  call MPI_Type_contiguous(B, MPI_INTEGER, blk, ierr)
  blens = 1
  displs(1) = 0
  displs(2) = 2 * nprocs * B * 4
  types = blk
  call MPI_Type_struct(NB, blens, displs, types, ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  adispls(1) = 0
  adispls(2) = 2 * nprocs * B * 4
  call MPI_Type_create_struct(NB, blens, adispls, types, stype, ierr)
  call MPI_Type_get_envelope(stype, ni, na, nd, comb, ierr)
  if (ni /= NB + 1 .or. na /= NB .or. nd /= NB) call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
  gaddrs = -1
  call MPI_Type_get_contents(stype, ni, na, nd, gints, gaddrs, gtypes, ierr)
  if (gaddrs(1) /= 0 .or. gaddrs(2) /= 2 * nprocs * B * 4) call MPI_Abort(MPI_COMM_WORLD, 5, ierr)
  ! a derived constituent's handle returned is the caller's to free
  do i = 1, nd
    call MPI_Type_free(gtypes(i), ierr)
  end do
  call MPI_Type_free(stype, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'tstruct.out', MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  call MPI_File_set_view(fh, int(rank * B * 4, MPI_OFFSET_KIND), MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_write(fh, buf, 1, mtype, status, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Type_free(mtype, ierr)
  call MPI_Type_free(ftype, ierr)
  call MPI_Type_free(blk, ierr)
  call MPI_Finalize(ierr)
end program
